import type { ImgHTMLAttributes } from 'react';

export const FALLBACK_IMAGE = '/images/image.png';

type PictureProps = ImgHTMLAttributes<HTMLImageElement> & {
  /** Seen without scrolling on a phone: asked for at once rather than when it nears the screen. */
  eager?: boolean;
};

/** An image, loaded lazily unless eager, that shows the fallback picture when it is missing or broken. */
export function Picture({ src, alt, eager = false, ...rest }: PictureProps) {
  return (
    <img
      {...rest}
      src={src || FALLBACK_IMAGE}
      alt={alt}
      loading={eager ? 'eager' : 'lazy'}
      decoding="async"
      onError={(event) => {
        const img = event.currentTarget;
        if (!img.src.endsWith(FALLBACK_IMAGE)) img.src = FALLBACK_IMAGE;
      }}
    />
  );
}
