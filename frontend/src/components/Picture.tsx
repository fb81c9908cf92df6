import type { ImgHTMLAttributes } from 'react';

export const FALLBACK_IMAGE = '/images/image.png';

type PictureProps = ImgHTMLAttributes<HTMLImageElement> & {
  /** Seen without scrolling on a phone: asked for at once rather than when it nears the screen. */
  eager?: boolean;
  /** Shown when the picture is missing or broken; the store's grey picture unless given. */
  fallback?: string;
};

/** An image, loaded lazily unless eager, that shows the fallback picture when it is missing or broken. */
export function Picture({ src, alt, eager = false, fallback = FALLBACK_IMAGE, ...rest }: PictureProps) {
  return (
    <img
      {...rest}
      src={src || fallback}
      alt={alt}
      loading={eager ? 'eager' : 'lazy'}
      decoding="async"
      onError={(event) => {
        const img = event.currentTarget;
        if (!img.src.endsWith(fallback)) img.src = fallback;
      }}
    />
  );
}
