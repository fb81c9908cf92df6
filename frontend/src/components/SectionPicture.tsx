import { SECTION_NAMES } from '@raseed/sections';
import applications from '../assets/sections/applications.svg?inline';
import balance from '../assets/sections/balance.svg?inline';
import cards from '../assets/sections/cards.svg?inline';
import games from '../assets/sections/games.svg?inline';
import numbers from '../assets/sections/numbers.svg?inline';
import social from '../assets/sections/social.svg?inline';
import { Picture } from './Picture';

type SectionName = (typeof SECTION_NAMES)[number];

/**
 * The store's own artwork for each home section, and what it shows. The pictures are small (3 kB
 * gzipped in all) and inside the script: the home page's largest paint, one of them, then waits
 * for no request of its own once the tiles are drawn.
 */
const ARTWORK: Record<SectionName, { src: string; alt: string }> = {
  'Applications section': { src: applications, alt: 'A phone full of app icons' },
  'Games section': { src: games, alt: 'A game controller and a star' },
  'Cards section': { src: cards, alt: 'Gift cards tied with a ribbon' },
  'قسم الرصيد والباقات': { src: balance, alt: 'A SIM card, signal bars and a stack of coins' },
  'Numbers section': { src: numbers, alt: 'A phone keypad and a confirmed message' },
  'Social Media Section': { src: social, alt: 'A profile with a like, a follow and views' },
};

const nameKey = (name: string) => name.trim().toLowerCase();

/** A section's artwork by its name, compared without case. */
export const sectionArtwork = (name: string) =>
  SECTION_NAMES.filter((s) => nameKey(s) === nameKey(name)).map((s) => ARTWORK[s])[0];

interface SectionPictureProps {
  name: string;
  /** The picture an admin chose for the section; null or undefined shows the store's artwork. */
  customImage: string | null | undefined;
  className?: string;
  eager?: boolean;
}

/** A home section's picture: the admin's choice, else (and if that one fails to load) the store's artwork. */
export function SectionPicture({ name, customImage, className, eager }: SectionPictureProps) {
  const artwork = sectionArtwork(name);
  return (
    <Picture
      className={className}
      src={customImage ?? artwork?.src}
      fallback={artwork?.src}
      alt={customImage ? `Picture of the ${name}` : (artwork?.alt ?? '')}
      width="240"
      height="160"
      eager={eager}
    />
  );
}
