import {
  badRequest,
  currentUser,
  notFound,
  pageAnswer,
  pageSchema,
  parseInput,
  textFileForm,
  uploadedFile,
  z,
  type ApiRoutes,
} from '@raseed/kit';
import type { StockSettings } from '../data/stock-levels';
import { codeTexts, readCodes, type CodeVault } from '../domain/codes';
import type { OrderDeps } from '../domain/orders';
import type { PricedProduct } from '../domain/prices';
import { ORDER_ID, texts } from '../domain/rules';

/** An upload of 10,000 lines of code, serial, PIN and expiry fits well within this. */
const UPLOAD_MAX_BYTES = 2 * 1024 * 1024;
const productParam = z.object({ productId: z.string().regex(/^c-[\w-]{1,64}$/, codeTexts.notStocked) });
const orderParam = z.object({ orderId: z.string().regex(ORDER_ID, texts.orderMissing) });
const counts = z.object({ available: z.number(), sold: z.number(), expired: z.number() });
const settingsBody = z.object({
  low_stock_threshold: z.number().int().min(0).max(10_000),
  manual_when_out: z.boolean(),
});
const settingsView = (s: StockSettings) => ({
  low_stock_threshold: s.lowThreshold,
  manual_when_out: s.manualWhenOut,
});

/**
 * Stocks of codes for created products: admins upload them and see them masked, with counts;
 * an order's owner reveals the codes delivered to it. Nothing here shows a code whole to an admin.
 */
export function codeRoutes(api: ApiRoutes, deps: OrderDeps, vault: CodeVault): void {
  /** The product, which must be one the store created (catalog answers 404 for an unknown id). */
  async function createdProduct(productId: string, userId: string): Promise<PricedProduct> {
    const product = await deps.prices.of(productId, userId);
    if (!product) throw notFound(texts.productMissing);
    if (product.kind !== 'created') throw badRequest(codeTexts.notStocked);
    return product;
  }

  api.route(
    {
      method: 'post',
      path: '/api/orders/stock/{productId}/codes',
      summary:
        "Adds codes to a created product's stock (multipart: file, one code a line, optionally code,serial,pin,expiry as CSV; at most 10,000); codes the product has already and blank lines are counted, not added",
      access: 'admin',
      form: { fields: z.object({}), file: 'file' },
      status: 201,
      answer: z.object({
        success: z.boolean(),
        added: z.number(),
        duplicates: z.number(),
        blank: z.number(),
        stock: counts,
      }),
    },
    textFileForm('file', UPLOAD_MAX_BYTES, codeTexts.tooLarge),
    async (req, res) => {
      const { productId } = parseInput(productParam, req.params);
      const admin = currentUser(req);
      const product = await createdProduct(productId, admin.id);
      const file = uploadedFile(req);
      if (!file?.size) throw badRequest(codeTexts.none);
      let text: string;
      try {
        text = new TextDecoder('utf-8', { fatal: true }).decode(file.buffer);
      } catch {
        throw badRequest(codeTexts.unreadable);
      }
      const { codes, blank } = readCodes(text, vault, productId);
      const batch = await deps.codes.add({ productId, by: admin.id, username: admin.username, blank }, codes);
      deps.logger.info(
        { productId, batchId: batch._id, by: admin.id, added: batch.added, duplicates: batch.duplicates },
        'codes added to stock',
      );
      // Counted before the answer: the store shows the product on sale again once the admin sees this.
      await deps.stock.announce(productId, product.name);
      res.status(201).json({
        success: true,
        added: batch.added,
        duplicates: batch.duplicates,
        blank,
        stock: await deps.codes.counts(productId),
      });
    },
  );

  api.route(
    {
      method: 'get',
      path: '/api/orders/stock/{productId}',
      summary:
        "A created product's stock: its counts, its codes masked (newest first, 10 a page, with the order each was sold to) and its last uploads",
      access: 'admin',
      query: pageSchema,
      answer: z.object({ success: z.boolean(), stock: counts }).passthrough(),
    },
    async (req, res) => {
      const { productId } = parseInput(productParam, req.params);
      const query = parseInput(pageSchema, req.query);
      const [[codes, total], stock, batches, settings] = await Promise.all([
        deps.codes.page(productId, query.page, query.limit),
        deps.codes.counts(productId),
        deps.codes.batches(productId),
        deps.stock.settingsOf(productId),
      ]);
      const now = Date.now();
      res.json({
        success: true,
        stock,
        codes: codes.map((c) => ({
          id: c._id.toString(),
          mask: c.mask,
          expires_at: c.expiresAt,
          state: c.claimedBy ? 'sold' : c.expiresAt && c.expiresAt.getTime() <= now ? 'expired' : 'available',
          order_id: c.claimedBy,
          added_at: c.at,
        })),
        batches: batches.map((b) => ({
          id: b._id,
          by: b.username,
          added: b.added,
          duplicates: b.duplicates,
          blank: b.blank,
          at: b.at,
        })),
        settings: settingsView(settings),
        ...pageAnswer(query, total),
      });
    },
  );

  api.route(
    {
      method: 'put',
      path: '/api/orders/stock/{productId}/settings',
      summary:
        "A stock's settings: the codes left at which the admins get a low-stock e-mail (0: never), and whether orders wait for an admin once it is out instead of being refused 'Out of stock'",
      access: 'admin',
      body: settingsBody,
      answer: z.object({ success: z.boolean(), settings: settingsBody, message: z.string() }),
    },
    async (req, res) => {
      const { productId } = parseInput(productParam, req.params);
      const settings = parseInput(settingsBody, req.body);
      const admin = currentUser(req);
      const product = await createdProduct(productId, admin.id);
      const chosen = { lowThreshold: settings.low_stock_threshold, manualWhenOut: settings.manual_when_out };
      await deps.stock.set(productId, product.name, chosen, admin.id);
      deps.logger.info({ productId, by: admin.id, ...chosen }, 'stock settings changed');
      res.json({ success: true, settings: settingsView(chosen), message: codeTexts.settingsSaved });
    },
  );

  api.route(
    {
      method: 'get',
      path: '/api/orders/codes/{orderId}',
      summary: 'The codes delivered to one of your own orders from stock, whole (only its owner sees them)',
      access: 'user',
      answer: z.object({
        success: z.boolean(),
        codes: z.array(
          z.object({
            code: z.string(),
            serial: z.string().optional(),
            pin: z.string().optional(),
            expires: z.string().optional(),
          }),
        ),
      }),
    },
    async (req, res) => {
      const { orderId } = parseInput(orderParam, req.params);
      const user = currentUser(req);
      const order = await deps.orders.findById(orderId);
      // Another's order answers as a missing one: its existence is not told.
      if (!order || order.userId !== user.id || !order.stocked || order.status !== 'confirmed')
        throw notFound(texts.orderMissing);
      const sealed = await deps.codes.sealedOf(orderId);
      deps.logger.info({ orderId, userId: user.id }, 'delivered codes revealed');
      res.json({ success: true, codes: sealed.map((c) => vault.open(order.productId, c.sealed)) });
    },
  );
}
