import { carriesEvents, createEvent, modelOf, type Logger, type Outbox } from '@raseed/kit';
import { Schema, type Connection } from 'mongoose';
import { sellable, type CodeModels } from './codes';

/** What an admin chose for a product's stock: when it counts as low, and whether to take orders by hand once it is out. */
export interface StockSetting {
  _id: string;
  /** Codes left at or under which the admins get a low-stock e-mail; 0: never. */
  lowThreshold: number;
  /** Out of stock, the product stays on sale and its orders wait for an admin, as without a stock. */
  manualWhenOut: boolean;
  by: string;
  at: Date;
}

const settingSchema = new Schema(
  {
    _id: String,
    lowThreshold: { type: Number, required: true },
    manualWhenOut: { type: Boolean, required: true },
    by: { type: String, required: true },
    at: { type: Date, required: true },
  },
  { versionKey: false },
);

/**
 * A low stock told to the admins: one per product and refill (keyed by the newest upload), by
 * this insert, which carries its stock.low event (rule 9): counted again and again, it is told once.
 */
interface StockAlert {
  _id: string;
  productId: string;
  available: number;
  at: Date;
}

const alertSchema = new Schema(
  {
    _id: String,
    productId: { type: String, required: true },
    available: { type: Number, required: true },
    at: { type: Date, required: true },
  },
  { versionKey: false },
);
carriesEvents(alertSchema);

export function stockLevelModels(conn: Connection) {
  return {
    Setting: modelOf<StockSetting>(conn, 'StockSetting', settingSchema, 'stock_settings'),
    Alert: modelOf<StockAlert>(conn, 'StockAlert', alertSchema, 'stock_alerts'),
  };
}
export type StockLevelModels = ReturnType<typeof stockLevelModels>;

export type StockSettings = Pick<StockSetting, 'lowThreshold' | 'manualWhenOut'>;
const DEFAULT_SETTINGS: StockSettings = { lowThreshold: 0, manualWhenOut: false };

/**
 * A stock's level as the store shows it: counted after each change (an upload, a sale, a code
 * given back, a setting) and announced with stock.level-changed, so catalog shows a product out
 * of stock. The count is what the stock holds at that moment, never a running total: a count
 * lost in a crash is put right by the next one, and a sale never depends on it (its claim does).
 */
export class StockLevels {
  /** Products being counted here now, and those changed again meanwhile (counted once more after). */
  private readonly counting = new Map<string, Promise<void>>();
  private readonly changedAgain = new Set<string>();

  constructor(
    private readonly codes: CodeModels,
    private readonly m: StockLevelModels,
    private readonly outbox: Outbox,
    private readonly logger: Logger,
  ) {}

  async settingsOf(productId: string): Promise<StockSettings> {
    const found = await this.m.Setting.findById(productId).lean<StockSetting>();
    return found
      ? { lowThreshold: found.lowThreshold, manualWhenOut: found.manualWhenOut }
      : DEFAULT_SETTINGS;
  }

  /** Whether a code can be sold now (one free and not expired). */
  async hasAvailable(productId: string): Promise<boolean> {
    return (await this.codes.Code.exists(sellable(productId))) !== null;
  }

  /** An admin's settings, announced with the level they give before they are stored. */
  async set(productId: string, productName: string, settings: StockSettings, by: string): Promise<void> {
    await this.announce(productId, productName, settings);
    await this.m.Setting.updateOne(
      { _id: productId },
      { $set: { ...settings, by, at: new Date() } },
      { upsert: true },
    );
  }

  /**
   * Counts the stock again after a change, in the background: the caller does not wait, and
   * changes that come while it counts are counted once more after.
   */
  changed(productId: string, productName: string): void {
    if (this.counting.has(productId)) {
      this.changedAgain.add(productId);
      return;
    }
    const run = this.announce(productId, productName)
      .then(() => undefined)
      .catch((err: unknown) => this.logger.warn({ err, productId }, 'the stock level could not be announced'))
      .finally(() => {
        this.counting.delete(productId);
        if (this.changedAgain.delete(productId)) this.changed(productId, productName);
      });
    this.counting.set(productId, run);
  }

  /** Counts what can be sold, announces it, and tells the admins once when it has fallen to the threshold. */
  async announce(productId: string, productName: string, settings?: StockSettings): Promise<number> {
    const chosen = settings ?? (await this.settingsOf(productId));
    const countedAt = new Date();
    const available = await this.codes.Code.countDocuments(sellable(productId));
    await this.outbox.add(
      createEvent('orders', 'stock.level-changed', productId, {
        productId,
        available,
        manualWhenOut: chosen.manualWhenOut,
        countedAt: countedAt.toISOString(),
      }),
    );
    if (chosen.lowThreshold > 0 && available <= chosen.lowThreshold) {
      await this.alert(productId, productName, available, chosen.lowThreshold);
    }
    return available;
  }

  private async alert(
    productId: string,
    productName: string,
    available: number,
    threshold: number,
  ): Promise<void> {
    const refill = await this.codes.Batch.findOne({ productId })
      .sort({ at: -1 })
      .select({ _id: 1 })
      .lean<{ _id: string }>();
    if (!refill) return;
    const { first } = await this.outbox.insertOnce(
      this.m.Alert,
      { _id: `${productId}:${refill._id}`, productId, available, at: new Date() },
      [createEvent('orders', 'stock.low', productId, { productId, productName, available, threshold })],
    );
    if (first) {
      this.logger.info({ productId, available, threshold }, 'low stock told to the admins');
    }
  }
}
