import { isDuplicateKey, type EventEnvelope } from '@raseed/kit';
import type { CatalogModels, Discount } from '../data/models';

/** Keeps each user's discount for pricing; an older change arriving late changes nothing. */
export const onDiscountChanged =
  (models: CatalogModels) =>
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
  };

export async function discountOf(models: CatalogModels, userId: string | undefined): Promise<number | null> {
  if (!userId) return null;
  const found = await models.Discount.findById(userId).lean<Discount>();
  return found?.percentage ?? null;
}
