/**
 * The six sections of the home page (spec §2, §3) and the sub-categories each shows
 * besides the categories an admin places in it. The lists name supplier categories.
 */
export const SECTIONS = [
  {
    name: 'Applications section',
    subcategories: ['Netflix', 'Shahid', 'TikTok Coins', 'Bigo Live', 'Likee'],
  },
  {
    name: 'Games section',
    subcategories: [
      'PUBG Mobile',
      'Free Fire',
      'Yalla Ludo',
      'Ludo Club',
      'Clash of Clans',
      'Clash Royale',
      'Jawaker',
      'Tarneeb',
    ],
  },
  { name: 'Cards section', subcategories: ['Steam', 'iTunes', 'PlayStation', 'Xbox'] },
  { name: 'قسم الرصيد والباقات', subcategories: ['Alfa', 'Touch'] },
  { name: 'Numbers section', subcategories: ['WhatsApp Number', 'Telegram Number'] },
  {
    name: 'Social Media Section',
    subcategories: ['Instagram Followers', 'TikTok Likes', 'YouTube Views'],
  },
] as const;

export const SECTION_NAMES: string[] = SECTIONS.map((s) => s.name);

/** Names are compared without case and surrounding spaces (spec §2 Api Categories, search). */
export const nameKey = (name: string) => name.trim().toLowerCase();

export const isSection = (name: string) => SECTION_NAMES.some((s) => nameKey(s) === nameKey(name));
