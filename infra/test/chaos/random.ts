/**
 * The chaos run's only source of chance: mulberry32, a small seeded generator, so a seed
 * replays the same choices. Each actor and the fault driver draw from a stream of their own
 * (fork), so one actor's choices do not depend on how the others' requests interleaved.
 */
export class Random {
  private state: number;

  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }

  /** A number in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** A whole number from min to max, both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (!items.length) throw new Error('nothing to pick from');
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** One of the choices, each as likely as its weight. */
  weighted<T>(choices: readonly (readonly [T, number])[]): T {
    const total = choices.reduce((sum, [, weight]) => sum + weight, 0);
    let roll = this.next() * total;
    for (const [choice, weight] of choices) {
      roll -= weight;
      if (roll < 0) return choice;
    }
    return choices[choices.length - 1]![0];
  }

  /** An independent stream named by `label`, the same for the same seed whatever was drawn before. */
  fork(label: string): Random {
    let hash = 0x811c9dc5;
    for (const char of label) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193);
    return new Random((this.seed ^ hash) >>> 0);
  }
}

/** A seed from CHAOS_SEED, or a new one. */
export function chaosSeed(env: NodeJS.ProcessEnv = process.env): number {
  const given = env.CHAOS_SEED;
  if (given !== undefined && given !== '') {
    const seed = Number(given);
    if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff)
      throw new Error(`CHAOS_SEED must be a whole number from 0 to 4294967295, not ${given}`);
    return seed;
  }
  return Math.floor(Math.random() * 0x100000000);
}
