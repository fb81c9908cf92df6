/**
 * The six sections of the home page, spelled as the catalogue keeps them (spec §2, §3). A file
 * of its own, without zod, so the storefront's home page takes the names without the form rules.
 */
export const SECTION_NAMES = [
  'Applications section',
  'Games section',
  'Cards section',
  'قسم الرصيد والباقات',
  'Numbers section',
  'Social Media Section',
] as const;
