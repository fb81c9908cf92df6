import { isDuplicateKey, type EventEnvelope } from '@raseed/kit';
import type { ReadCache } from '../data/cache';
import type { CatalogModels, StockLevel } from '../data/models';

/**
 * Keeps each created product's stock level for its page; an older count arriving late changes
 * nothing. Pages are asked again (the cache moves on) only when a product goes out of stock or
 * comes back, not at every sale.
 */
export const onStockLevelChanged =
  (models: CatalogModels, cache: Pick<ReadCache, 'invalidate'>) =>
  async ({ data }: EventEnvelope<'stock.level-changed'>) => {
    const countedAt = new Date(data.countedAt);
    const out = data.available === 0 && !data.manualWhenOut;
    const level = { available: data.available, out, countedAt };
    let shown: boolean | undefined;
    try {
      await models.StockLevel.create({ _id: data.productId, ...level });
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      const before = await models.StockLevel.findById(data.productId).lean<StockLevel>();
      if (before && before.countedAt >= countedAt) return;
      shown = before?.out;
      await models.StockLevel.updateOne(
        { _id: data.productId, countedAt: { $lt: countedAt } },
        { $set: level },
      );
    }
    if (shown !== out) await cache.invalidate();
  };
