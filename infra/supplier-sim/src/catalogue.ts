/** A product as the simulated supplier keeps it; answered in the supplier's own field names. */
export interface SimProduct {
  id: number;
  name: string;
  /** Integer micro-dollars, so every price has at most 6 decimals. */
  priceMicros: number;
  categoryName: string;
  /** The file under /images/ showing the category. */
  image: string;
  params: string[];
  qtyValues: { min: number; max: number } | null;
  available: boolean;
}

/** One supplier category (a sub-category of a storefront section) and what it sells. */
interface CategoryPlan {
  name: string;
  section: string;
  params: string[];
  qtyValues?: { min: number; max: number };
  /** What follows the category in a product's name, and its cost in dollars (per unit with quantity limits). */
  items: [string, number][];
}

const PLAYER = ['Player ID'];
const PLAYER_ON_SERVER = ['Player ID', 'Server'];
const PHONE = ['Phone Number'];
const LINK = ['Link'];
const GAMES = 'Games section';
const CARDS = 'Cards section';
const APPS = 'Applications section';
const TELECOM = 'قسم الرصيد والباقات';
const NUMBERS = 'Numbers section';
const SOCIAL = 'Social Media Section';

/** Gem packs priced alike in both Supercell games. */
const GEMS: [string, number][] = [
  ['80 Gems', 0.99],
  ['500 Gems', 4.9],
  ['1200 Gems', 9.8],
];

/** Prepaid credit in the denominations both Lebanese operators sell. */
const CREDIT: [string, number][] = [
  ['$1.67 Credit', 1.85],
  ['$3.79 Credit', 4.15],
  ['$7.58 Credit', 8.2],
  ['$15.15 Credit', 16.3],
];

const PLANS: CategoryPlan[] = [
  {
    name: 'PUBG Mobile',
    section: GAMES,
    params: PLAYER,
    items: [
      ['60 UC', 0.99],
      ['325 UC', 4.85],
      ['660 UC', 9.7],
      ['1800 UC', 24.25],
      ['3850 UC', 48.5],
      ['8100 UC', 97],
    ],
  },
  {
    name: 'Free Fire',
    section: GAMES,
    params: PLAYER,
    items: [
      ['100 Diamonds', 0.92],
      ['310 Diamonds', 2.8],
      ['520 Diamonds', 4.6],
      ['1060 Diamonds', 9.2],
      ['2180 Diamonds', 18.4],
      ['Weekly Membership', 1.75],
    ],
  },
  {
    name: 'Yalla Ludo',
    section: GAMES,
    params: PLAYER,
    items: [
      ['830 Diamonds', 4.9],
      ['2320 Diamonds', 13.5],
      ['5150 Diamonds', 29],
      ['160K Gold', 1.8],
    ],
  },
  {
    name: 'Ludo Club',
    section: GAMES,
    params: PLAYER_ON_SERVER,
    items: [
      ['100K Coins', 0.99],
      ['500K Coins', 4.6],
      ['1.2M Coins', 9.5],
      ['5M Coins', 37],
    ],
  },
  {
    name: 'Clash of Clans',
    section: GAMES,
    params: PLAYER,
    items: [...GEMS, ['2500 Gems', 19.5], ['6500 Gems', 48.5], ['Gold Pass', 6.7]],
  },
  {
    name: 'Clash Royale',
    section: GAMES,
    params: PLAYER,
    items: [...GEMS, ['Pass Royale', 5.9]],
  },
  {
    name: 'Jawaker',
    section: GAMES,
    params: PLAYER,
    items: [
      ['10K Tokens', 1.1],
      ['35K Tokens', 3.6],
      ['110K Tokens', 10.5],
      ['VIP 1 Month', 4.2],
    ],
  },
  {
    name: 'Tarneeb',
    section: GAMES,
    params: PLAYER_ON_SERVER,
    items: [
      ['50K Chips', 0.95],
      ['250K Chips', 4.5],
      ['1M Chips', 16.5],
    ],
  },
  {
    name: 'Steam',
    section: CARDS,
    params: [],
    items: [
      ['$5 Card', 5.35],
      ['$10 Card', 10.6],
      ['$20 Card', 21.1],
      ['$50 Card', 52.4],
      ['$100 Card', 104.6],
    ],
  },
  {
    name: 'iTunes',
    section: CARDS,
    params: [],
    items: [
      ['$2 Card', 2.12],
      ['$5 Card', 5.25],
      ['$10 Card', 10.45],
      ['$25 Card', 26],
      ['$50 Card', 51.8],
    ],
  },
  {
    name: 'PlayStation',
    section: CARDS,
    params: [],
    items: [
      ['$10 Card', 10.4],
      ['$20 Card', 20.75],
      ['$50 Card', 51.6],
      ['Plus Essential 3 Months', 26.5],
      ['Plus 12 Months', 63],
    ],
  },
  {
    name: 'Xbox',
    section: CARDS,
    params: [],
    items: [
      ['$10 Card', 10.5],
      ['$25 Card', 25.9],
      ['Game Pass Ultimate 1 Month', 17.4],
      ['Game Pass Core 3 Months', 26],
    ],
  },
  {
    name: 'Netflix',
    section: APPS,
    params: [],
    items: [
      ['$15 Gift Card', 15.9],
      ['$25 Gift Card', 26.3],
      ['$50 Gift Card', 52.2],
    ],
  },
  {
    name: 'Shahid',
    section: APPS,
    params: [],
    items: [
      ['VIP 1 Month', 6.1],
      ['VIP 3 Months', 17.4],
      ['VIP 12 Months', 62],
      ['VIP Sports 1 Month', 11.8],
    ],
  },
  {
    name: 'TikTok Coins',
    section: APPS,
    params: ['TikTok Username'],
    items: [
      ['70 Coins', 0.93],
      ['350 Coins', 4.55],
      ['700 Coins', 9.1],
      ['1400 Coins', 18.1],
      ['3500 Coins', 45.2],
    ],
  },
  {
    name: 'Bigo Live',
    section: APPS,
    params: ['Bigo ID'],
    items: [
      ['42 Diamonds', 0.99],
      ['210 Diamonds', 4.9],
      ['440 Diamonds', 9.8],
      ['2200 Diamonds', 48.5],
    ],
  },
  {
    name: 'Likee',
    section: APPS,
    params: ['Likee ID'],
    items: [
      ['70 Diamonds', 1.05],
      ['350 Diamonds', 5.1],
      ['700 Diamonds', 10.1],
    ],
  },
  {
    name: 'Alfa',
    section: TELECOM,
    params: PHONE,
    items: [...CREDIT, ['Waffer 1GB', 4.6], ['Super 10GB', 13.7]],
  },
  {
    name: 'Touch',
    section: TELECOM,
    params: PHONE,
    items: [...CREDIT, ['Start 600MB', 3.4], ['Smart 7GB', 10.9]],
  },
  {
    name: 'WhatsApp Number',
    section: NUMBERS,
    params: [],
    items: [
      ['USA', 1.2],
      ['UK', 1.45],
      ['Canada', 1.1],
      ['Netherlands', 2.3],
      ['Indonesia', 0.55],
    ],
  },
  {
    name: 'Telegram Number',
    section: NUMBERS,
    params: [],
    items: [
      ['USA', 1.35],
      ['UK', 1.6],
      ['Germany', 2.1],
      ['India', 0.7],
    ],
  },
  {
    name: 'Instagram Followers',
    section: SOCIAL,
    params: LINK,
    qtyValues: { min: 100, max: 10_000 },
    items: [
      ['Real', 0.0015],
      ['High Quality', 0.0024],
      ['Arab', 0.0041],
      ['Guaranteed 30 Days', 0.0032],
    ],
  },
  {
    name: 'TikTok Likes',
    section: SOCIAL,
    params: LINK,
    qtyValues: { min: 100, max: 10_000 },
    items: [
      ['Fast', 0.0008],
      ['Real', 0.0012],
      ['Arab', 0.0029],
    ],
  },
  {
    name: 'YouTube Views',
    section: SOCIAL,
    params: LINK,
    qtyValues: { min: 500, max: 50_000 },
    items: [
      ['Standard', 0.0011],
      ['High Retention', 0.0019],
      ['Targeted Arab', 0.0027],
    ],
  },
];

/** The storefront sections and the supplier categories the catalogue has in each. */
export const SECTIONS: Record<string, string[]> = {};
for (const plan of PLANS) (SECTIONS[plan.section] ??= []).push(plan.name);

export const SEEDED_SIZE = 300;
const FIRST_ID = 1001;
const REGIONS = ['Global', 'MENA', 'Europe', 'Turkey', 'Asia', 'LATAM'];

/** A well-mixed 32-bit number from an integer: the same catalogue every time, without a random source. */
export function scramble(n: number): number {
  let x = Math.imul(n ^ 0x9e3779b9, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

export const slug = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/** Past its first round a category repeats its items as regional editions, so every name stays unique. */
function edition(round: number): string {
  if (round === 0) return '';
  const region = REGIONS[(round - 1) % REGIONS.length];
  const lap = Math.floor((round - 1) / REGIONS.length);
  return ` (${region}${lap ? ` ${lap + 1}` : ''})`;
}

/**
 * The catalogue of a given size, the same for the same size: categories take turns, each
 * product's price is its item's cost plus up to 4%, and about one product in 37 is unavailable.
 */
export function buildCatalogue(size: number): SimProduct[] {
  const products: SimProduct[] = [];
  for (let i = 0; i < size; i++) {
    const plan = PLANS[i % PLANS.length]!;
    const round = Math.floor(i / PLANS.length);
    const [item, cost] = plan.items[round % plan.items.length]!;
    const mix = scramble(i);
    products.push({
      id: FIRST_ID + i,
      name: `${plan.name} ${item}${edition(Math.floor(round / plan.items.length))}`,
      priceMicros: Math.round(cost * 1_000_000 * (1 + (mix % 4000) / 100_000)),
      categoryName: plan.name,
      image: `${slug(plan.name)}.png`,
      params: plan.params,
      qtyValues: plan.qtyValues ?? null,
      available: mix % 37 !== 5,
    });
  }
  return products;
}
