import type { ImgHTMLAttributes } from 'react';

export const FALLBACK_IMAGE = '/images/image.png';

/** A lazily loaded image that shows the fallback picture when it is missing or broken. */
export function Picture({ src, alt, ...rest }: ImgHTMLAttributes<HTMLImageElement>) {
  return (
    <img
      {...rest}
      src={src || FALLBACK_IMAGE}
      alt={alt}
      loading="lazy"
      decoding="async"
      onError={(event) => {
        const img = event.currentTarget;
        if (!img.src.endsWith(FALLBACK_IMAGE)) img.src = FALLBACK_IMAGE;
      }}
    />
  );
}
