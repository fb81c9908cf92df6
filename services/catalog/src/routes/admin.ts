import {
  adminSyncAnswer,
  badRequest,
  checkImage,
  conflict,
  HttpError,
  imageForm,
  isDuplicateKey,
  notFound,
  objectIdPattern,
  parseInput,
  profitMultiplier,
  uploadedFile,
  type SyncAnswer,
  type Outbox,
  z,
  type ApiRoutes,
  type DocumentLocks,
  type ObjectStore,
} from '@raseed/kit';
import type { Request } from 'express';
import { randomUUID } from 'node:crypto';
import { Types } from 'mongoose';
import type { ReadCache } from '../data/cache';
import { imageUrl } from '../data/catalog';
import type { CatalogModels, Category, CustomProduct, Product } from '../data/models';
import {
  availabilitySchema,
  createCategorySchema,
  createProductSchema,
  customProductEditSchema,
  globalProfitSchema,
  priceEditSchema,
  texts,
} from '../domain/rules';
import { isSection, nameKey, SECTIONS } from '../domain/sections';
import { productChanged } from '../events/published';
import type { SyncResult } from '../jobs/sync';
import { categoryView, customCategoryView, customProductView, productView } from './reads';

export interface AdminDeps {
  models: CatalogModels;
  locks: DocumentLocks;
  outbox: Outbox;
  cache: ReadCache;
  images: ObjectStore;
  /** Runs a supplier sync now in its job; undefined if it is still running after the wait. */
  syncNow: () => Promise<SyncAnswer<SyncResult> | undefined>;
}

const outcome = (flag: string) => z.object({ [flag]: z.boolean(), message: z.string() });

/** A supplier whose catalogue cannot be read is a 502 with its reason; the last catalogue stays. */
const unreadable = (reason: string) =>
  new HttpError(502, `The supplier's catalogue could not be read (${reason}); the last one stays.`);

/** Checks the form's image by content and stores it under a new name; answers its key. */
async function storeImage(deps: AdminDeps, req: Request, failed: Record<string, unknown>, missing: string) {
  const file = uploadedFile(req);
  if (!file) throw badRequest(missing, failed);
  const image = await checkImage(file).catch((err: HttpError) => {
    throw new HttpError(err.status, err.message, failed);
  });
  const key = `catalog/${randomUUID()}.${image.extension}`;
  await deps.images.put(key, image.buffer, image.contentType);
  return key;
}

/** Runs `write`; if it fails, the image stored for it is removed again so nothing is left behind. */
async function withImage<T>(deps: AdminDeps, key: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    await deps.images.remove(key).catch(() => undefined);
    throw err;
  }
}

/** The catalogue's admin calls (spec §7); every one is admin-only on the server. */
export function adminRoutes(api: ApiRoutes, deps: AdminDeps): void {
  const { models, locks, outbox, cache } = deps;

  /** Updates one created product under its lock with its event; answers the product after the change. */
  async function changeProduct(
    id: string,
    set: Partial<Product>,
    change: 'updated' | 'removed',
    failed: Record<string, unknown>,
  ) {
    const current = await models.Product.findOne({ _id: id, removed: false }).lean<Product>();
    if (!current) throw notFound(texts.productNotFound, failed);
    const next = { ...current, ...set };
    await outbox.add(productChanged(next, change));
    await locks.run(models.Product, id, () => models.Product.updateOne({ _id: id }, { $set: set }));
    await cache.invalidate();
    return next;
  }

  api.route(
    {
      method: 'post',
      path: '/api/create/category',
      summary: 'Creates a category in a section (multipart: categoryName, section, image)',
      access: 'admin',
      form: { fields: createCategorySchema, file: 'image' },
      status: 201,
      answer: outcome('categoryStatus'),
    },
    imageForm('image'),
    async (req, res) => {
      const failed = { categoryStatus: false };
      const input = parseInput(createCategorySchema, req.body, failed);
      if (!uploadedFile(req)) throw badRequest(texts.fillAll, failed);
      const sectionKey = nameKey(input.section);
      const knownSection =
        isSection(input.section) ||
        SECTIONS.some((s) => s.subcategories.some((n) => nameKey(n) === sectionKey)) ||
        (await models.Category.exists({ nameKey: sectionKey })) ||
        (await models.CustomCategory.exists({ nameKey: sectionKey }));
      if (!knownSection) throw badRequest(texts.sectionUnknown, failed);
      if (await models.Category.exists({ nameKey: nameKey(input.categoryName) })) {
        throw conflict('A category with this name already exists.', failed);
      }
      const image = await storeImage(deps, req, failed, texts.fillAll);
      const category = await withImage(deps, image, () =>
        models.Category.create({
          name: input.categoryName,
          nameKey: nameKey(input.categoryName),
          section: input.section,
          sectionKey,
          image,
        }),
      ).catch((err: unknown) => {
        if (isDuplicateKey(err)) throw conflict('A category with this name already exists.', failed);
        throw err;
      });
      await cache.invalidate();
      res.status(201).json({
        categoryStatus: true,
        message: texts.categoryCreated,
        category: categoryView(category.toObject() as Category),
      });
    },
  );

  api.route(
    {
      method: 'put',
      path: '/api/categories/{id}/availability',
      summary: 'Switches a category on or off for customers',
      access: 'admin',
      body: availabilitySchema,
      answer: z.object({ success: z.boolean(), available: z.boolean() }),
    },
    async (req, res) => {
      const { available } = parseInput(availabilitySchema, req.body, { success: false });
      const id = String(req.params.id);
      if (!objectIdPattern.test(id)) throw notFound(texts.categoryNotFound, { success: false });
      const done = await locks.run(models.Category, id, () =>
        models.Category.updateOne({ _id: id }, { $set: { available } }),
      );
      if (done.matchedCount === 0) throw notFound(texts.categoryNotFound, { success: false });
      await cache.invalidate();
      res.json({ success: true, available });
    },
  );

  api.route(
    {
      method: 'put',
      path: '/api/products/{id}/availability',
      summary: "Switches a product on or off for customers (created 'c-' or supplier 'p-' products)",
      access: 'admin',
      body: availabilitySchema,
      answer: z.object({ success: z.boolean(), available: z.boolean() }),
    },
    async (req, res) => {
      const failed = { success: false };
      const { available } = parseInput(availabilitySchema, req.body, failed);
      const id = String(req.params.id);
      if (id.startsWith('c-')) {
        await changeProduct(id, { available }, 'updated', failed);
      } else {
        const product = await models.SupplierProduct.findOne({ _id: id, removed: false }).lean();
        if (!product) throw notFound(texts.productNotFound, failed);
        const event = productChanged(
          { ...product, available: available && product.supplierAvailable },
          'updated',
        );
        await outbox.add(event);
        await locks.run(models.SupplierProduct, id, () =>
          models.SupplierProduct.updateOne({ _id: id }, { $set: { available } }),
        );
        await cache.invalidate();
      }
      res.json({ success: true, available });
    },
  );

  api.route(
    {
      method: 'put',
      path: '/api/update/product/{id}',
      summary: "Sets a created product's price",
      access: 'admin',
      body: priceEditSchema,
      answer: outcome('updateStatus'),
    },
    async (req, res) => {
      const failed = { updateStatus: false };
      const { price } = parseInput(priceEditSchema, req.body, failed);
      const product = await changeProduct(String(req.params.id), { price }, 'updated', failed);
      res.json({ updateStatus: true, message: texts.productUpdated, product: productView(product) });
    },
  );

  api.route(
    {
      method: 'delete',
      path: '/api/delete/product/{id}',
      summary: 'Deletes a created product',
      access: 'admin',
      answer: outcome('deleteStatus'),
    },
    async (req, res) => {
      await changeProduct(String(req.params.id), { removed: true }, 'removed', { deleteStatus: false });
      res.json({ deleteStatus: true, message: texts.productDeleted });
    },
  );

  api.route(
    {
      method: 'post',
      path: '/api/create/product',
      summary:
        'Creates a product fulfilled by hand (multipart: productName, price, params, category_name, parent_id, image, fields[i][fieldName|fieldType|fieldValue])',
      access: 'admin',
      form: { fields: createProductSchema.innerType(), file: 'image' },
      status: 201,
      answer: outcome('productStatus'),
    },
    imageForm('image'),
    async (req, res) => {
      const failed = { productStatus: false };
      const input = parseInput(createProductSchema, req.body, failed);
      if (!uploadedFile(req)) throw badRequest(texts.fillAll, failed);
      const categoryKey = nameKey(input.category_name);
      const category =
        (await models.Category.findOne({ nameKey: categoryKey }).lean<Category>()) ??
        (await models.CustomCategory.findOne({ nameKey: categoryKey }).lean());
      const section = SECTIONS.find((s) => nameKey(s.name) === categoryKey);
      if (!category && !section) throw badRequest(texts.chooseCategory, failed);
      const image = await storeImage(deps, req, failed, texts.fillAll);
      const _id = `c-${new Types.ObjectId().toString()}`;
      const draft = {
        _id,
        name: input.productName,
        nameKey: nameKey(input.productName),
        price: input.price,
        categoryName: category?.name ?? section?.name ?? input.category_name,
        categoryKey,
        parentId: category?._id.toString() ?? null,
        image,
        params: input.params ? [input.params] : [],
        fields: input.fields.map((f) => ({ name: f.fieldName, type: f.fieldType, value: f.fieldValue })),
        available: true,
        removed: false,
      };
      const created = await withImage(deps, image, () =>
        outbox.create(models.Product, draft, [productChanged(draft as Product, 'created')], {
          _id: draft._id,
        }),
      );
      await cache.invalidate();
      res.status(201).json({
        productStatus: true,
        message: texts.productCreated,
        product: productView(created.toObject() as Product),
      });
    },
  );

  api.route(
    {
      method: 'post',
      path: '/api/edit-custom-percentage',
      summary: 'Sets the profit percentage of every supplier product at once',
      access: 'admin',
      body: globalProfitSchema,
      answer: outcome('success'),
    },
    async (req, res) => {
      const { percentage } = parseInput(globalProfitSchema, req.body, { success: false });
      await models.CustomProduct.updateMany({}, { $set: { percentage: profitMultiplier(percentage) } });
      await cache.invalidate();
      res.json({ success: true, message: texts.percentageUpdated });
    },
  );

  api.route(
    {
      method: 'put',
      path: '/api/edit-custom-products',
      summary:
        "Sets one supplier product's profit percentage and/or image (multipart: product_name, percentage, image)",
      access: 'admin',
      form: { fields: customProductEditSchema, file: 'image' },
      answer: outcome('success'),
    },
    imageForm('image'),
    async (req, res) => {
      const failed = { success: false };
      const input = parseInput(customProductEditSchema, req.body, failed);
      const key = nameKey(input.product_name);
      const custom = await models.CustomProduct.findOne({ nameKey: key }).lean<CustomProduct>();
      if (!custom) throw notFound(texts.customProductMissing(input.product_name), failed);
      const set: Partial<CustomProduct> = {};
      if (input.percentage !== undefined) set.percentage = profitMultiplier(input.percentage);
      const image = uploadedFile(req) ? await storeImage(deps, req, failed, texts.selectImage) : undefined;
      if (image) set.image = image;
      if (!Object.keys(set).length) throw badRequest('Send a new profit percentage or an image.', failed);
      const write = () =>
        locks.run(models.CustomProduct, custom._id, () =>
          models.CustomProduct.updateOne({ _id: custom._id }, { $set: set }),
        );
      await (image ? withImage(deps, image, write) : write());
      await cache.invalidate();
      const updated = customProductView({ ...custom, ...set });
      res.json({ success: true, message: texts.customProductUpdated, ...updated });
    },
  );

  api.route(
    {
      method: 'put',
      path: '/api/edit-custom-categories/{id}',
      summary: "Sets a supplier category's image (multipart: image)",
      access: 'admin',
      form: { fields: z.object({}), file: 'image' },
      answer: z.object({ id: z.string(), image: z.string(), message: z.string() }),
    },
    imageForm('image'),
    async (req, res) => {
      const failed = { success: false };
      const id = String(req.params.id);
      if (!objectIdPattern.test(id)) throw notFound(texts.categoryNotFound, failed);
      const custom = await models.CustomCategory.findById(id).lean();
      if (!custom) throw notFound(texts.categoryNotFound, failed);
      const image = await storeImage(deps, req, failed, texts.selectImage);
      await withImage(deps, image, () =>
        locks.run(models.CustomCategory, id, () =>
          models.CustomCategory.updateOne({ _id: id }, { $set: { image } }),
        ),
      );
      await cache.invalidate();
      res.json({ ...customCategoryView({ ...custom, image }), message: texts.categoryUpdated });
    },
  );

  /** One of the six home sections by its name in the path, compared without case; else a 404. */
  const sectionOf = (req: Request, failed: Record<string, unknown>) => {
    const key = nameKey(String(req.params.name ?? ''));
    const section = SECTIONS.find((s) => nameKey(s.name) === key);
    if (!section) throw notFound(texts.sectionNotFound, failed);
    return { name: section.name, key };
  };

  const sectionAnswer = z.object({
    success: z.boolean(),
    name: z.string(),
    custom_image: z.string().nullable(),
    message: z.string(),
  });

  api.route(
    {
      method: 'put',
      path: '/api/catalog/sections/{name}/image',
      summary: "Sets the picture a home section shows instead of the store's artwork (multipart: image)",
      access: 'admin',
      form: { fields: z.object({}), file: 'image' },
      answer: sectionAnswer,
    },
    imageForm('image'),
    async (req, res) => {
      const failed = { success: false };
      const section = sectionOf(req, failed);
      const image = await storeImage(deps, req, failed, texts.selectImage);
      await withImage(deps, image, () =>
        locks.run(models.SectionImage, section.key, () =>
          models.SectionImage.updateOne(
            { _id: section.key },
            { $set: { name: section.name, image } },
            { upsert: true },
          ),
        ),
      );
      await cache.invalidate();
      res.json({
        success: true,
        name: section.name,
        custom_image: imageUrl(image),
        message: texts.sectionImageSet,
      });
    },
  );

  api.route(
    {
      method: 'delete',
      path: '/api/catalog/sections/{name}/image',
      summary: "Takes a home section's picture away: the store's own artwork shows again",
      access: 'admin',
      answer: sectionAnswer,
    },
    async (req, res) => {
      const section = sectionOf(req, { success: false });
      await locks.run(models.SectionImage, section.key, () =>
        models.SectionImage.deleteOne({ _id: section.key }),
      );
      await cache.invalidate();
      // A category named like the section still lends it its picture (see CatalogReads.sections).
      const namesake = await models.Category.findOne({ nameKey: section.key }).lean<Category>();
      res.json({
        success: true,
        name: section.name,
        custom_image: namesake?.image ? imageUrl(namesake.image) : null,
        message: texts.sectionImageReset,
      });
    },
  );

  // The spec's client pushed these lists after assembling them itself; the server keeps them
  // from the supplier sync now (ARCHITECTURE rule 5), so a push asks for a sync.
  for (const path of ['/api/customproducts', '/api/customcategories', '/api/catalog/sync']) {
    api.route(
      {
        method: 'post',
        path,
        summary:
          'Syncs the supplier catalogue now (in its job) and answers what changed, or 202 if it is still running',
        access: 'admin',
        answer: z.object({
          success: z.boolean(),
          queued: z.boolean().optional(),
          received: z.number().optional(),
          created: z.number().optional(),
          updated: z.number().optional(),
          removed: z.number().optional(),
        }),
      },
      async (_req, res) => {
        const { status, body } = await adminSyncAnswer(deps.syncNow(), unreadable);
        res.status(status).json(body);
      },
    );
  }
}
