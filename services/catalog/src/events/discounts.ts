import { isDuplicateKey, type EventEnvelope } from '@raseed/kit';
import type { ReadCache } from '../data/cache';
import type { CatalogModels, Discount } from '../data/models';

/**
 * Keeps each user's discount for pricing; an older change arriving late changes nothing. The
 * catalogue's version moves on after it, so no order is priced with the discount it replaced.
 */
export const onDiscountChanged =
  (models: CatalogModels, cache: ReadCache) =>
  async ({ data }: EventEnvelope<'user.discount-changed'>) => {
    const setAt = new Date(data.setAt);
    try {
      await models.Discount.create({ _id: data.userId, percentage: data.percentage, setAt });
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      // Known already: take this change only if it is newer than the one kept.
      await models.Discount.updateOne(
        { _id: data.userId, setAt: { $lt: setAt } },
        { $set: { percentage: data.percentage, setAt } },
      );
    }
    await cache.invalidate();
  };

export async function discountOf(models: CatalogModels, userId: string | undefined): Promise<number | null> {
  if (!userId) return null;
  const found = await models.Discount.findById(userId).lean<Discount>();
  return found?.percentage ?? null;
}
