import { displayPrice, redisConnection, unitPrice } from '@raseed/kit';
import { readFileSync } from 'node:fs';
import { publishEvents } from '@raseed/kit/testing';
import { IMAGE, startTestCatalog, type TestCatalog } from './support';

let catalog: TestCatalog;
let admin: string;
let customer: { id: string; token: string };

beforeAll(async () => {
  catalog = await startTestCatalog();
  admin = catalog.token('admin').token;
  customer = catalog.token('user');
  const synced = await catalog.sync(admin);
  expect(synced.status).toBe(200);
});
afterAll(() => catalog.stop());

type PageProduct = {
  id: string;
  name: string;
  price: number;
  available: boolean;
  image: string;
  params: string[];
  qty_values: unknown;
};
const page = async (name: string, token?: string, search?: string) => {
  const req = catalog.http().get(`/api/catalog/category/${encodeURIComponent(name)}`);
  if (search !== undefined) req.query({ search });
  if (token) req.set('Authorization', token);
  const res = await req.expect(200);
  return res.body as {
    category: string;
    subcategories: { id: string; name: string }[];
    products: PageProduct[];
  };
};

describe('the storefront reads', () => {
  it('lists the six sections, each with sub-categories holding products synced from the supplier', async () => {
    const { body: sections } = await catalog.http().get('/api/catalog/sections').expect(200);
    expect(sections.map((s: { name: string }) => s.name)).toEqual([
      'Applications section',
      'Games section',
      'Cards section',
      'قسم الرصيد والباقات',
      'Numbers section',
      'Social Media Section',
    ]);
    for (const section of sections as { name: string; subcategories: { name: string }[] }[]) {
      expect(section.subcategories.length).toBeGreaterThan(0);
      const first = await page(section.subcategories[0]!.name);
      expect([section.name, first.products.length > 0]).toEqual([section.name, true]);
    }
  });

  it('prices for the caller: the profit multiplier, then their discount, as the exact unit price', async () => {
    const steam = await page('Steam');
    const product = steam.products.find((p) => p.available)!;
    const cost = catalog.sim.control.product(product.id.slice(2))!.priceMicros;
    // The rule itself is checked case by case in the kit's pricing test; here, that it is applied.
    const priced = (multiplier: number | null, discount: number | null) =>
      displayPrice(unitPrice(cost, multiplier, discount), 6);
    expect(product.price).toBe(priced(null, null));

    await catalog
      .http()
      .put('/api/edit-custom-products')
      .set('Authorization', admin)
      .field('product_name', product.name)
      .field('percentage', '10')
      .expect(200);
    await publishEvents('user.discount-changed', {
      key: customer.id,
      data: { userId: customer.id, percentage: 20, setAt: new Date().toISOString() },
    });
    const expectedForCustomer = priced(1.1, 20);
    const deadline = Date.now() + 20_000;
    let seen: number | undefined;
    while (Date.now() < deadline) {
      seen = (await page('Steam', customer.token)).products.find((p) => p.id === product.id)?.price;
      if (seen === expectedForCustomer) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(seen).toBe(expectedForCustomer);
    const visitor = (await page('Steam')).products.find((p) => p.id === product.id);
    expect(visitor?.price).toBe(priced(1.1, null));
  });

  it('finds products by the start of their name, trimmed and ignoring case', async () => {
    const all = await page('PUBG Mobile');
    const found = await page('PUBG Mobile', undefined, '  pubg mobile 6');
    expect(found.products.length).toBeGreaterThan(0);
    expect(found.products.length).toBeLessThan(all.products.length);
    for (const p of found.products) expect(p.name.toLowerCase().startsWith('pubg mobile 6')).toBe(true);
    expect((await page('PUBG Mobile', undefined, 'mobile')).products).toEqual([]);
  });

  it('keeps supplier costs and profit settings to admins', async () => {
    for (const path of ['/external/products', '/api/custom-products']) {
      await catalog.http().get(path).expect(401);
      await catalog.http().get(path).set('Authorization', customer.token).expect(403);
    }
    const { body } = await catalog.http().get('/external/products').set('Authorization', admin).expect(200);
    expect(body.length).toBe(catalog.sim.control.products.length);
    expect(body[0]).toEqual(
      expect.objectContaining({
        id: expect.stringMatching(/^p-/),
        price: expect.any(Number),
        category_img: expect.any(String),
      }),
    );
  });
});

describe('an admin shapes the catalogue', () => {
  it('lists and sells nothing of a category an admin switched off, until it is on again', async () => {
    const name = `Closed ${Date.now()}`;
    const category = await catalog
      .http()
      .post('/api/create/category')
      .set('Authorization', admin)
      .field('categoryName', name)
      .field('section', 'Cards section')
      .attach('image', IMAGE)
      .expect(201);
    const product = await catalog
      .http()
      .post('/api/create/product')
      .set('Authorization', admin)
      .field('productName', 'Closed Box')
      .field('price', '4')
      .field('params', 'Account username')
      .field('category_name', name)
      .attach('image', IMAGE)
      .expect(201);
    const id = product.body.product.id as string;
    const orderable = async () =>
      (
        await catalog
          .http()
          .get(`/internal/products/${id}`)
          .set('x-service-token', catalog.config.SERVICE_TOKEN)
          .expect(200)
      ).body.available as boolean;
    const toggle = (available: boolean) =>
      catalog
        .http()
        .put(`/api/categories/${category.body.category.id as string}/availability`)
        .set('Authorization', admin)
        .send({ available })
        .expect(200);
    expect((await page(name)).products.map((p) => p.id)).toEqual([id]);
    expect(await orderable()).toBe(true);

    await toggle(false);
    expect((await page(name)).products).toEqual([]);
    expect(await orderable()).toBe(false);
    await toggle(true);
    expect((await page(name)).products.map((p) => p.id)).toEqual([id]);
    expect(await orderable()).toBe(true);
  });

  it('caches the pages of names that exist only, so made-up names cannot fill the cache', async () => {
    const redis = redisConnection(catalog.config.CACHE_REDIS_URL);
    try {
      const made = `nothing-here-${Date.now()}`;
      for (let i = 0; i < 3; i++) await page(`${made}-${i}`);
      expect(await redis.keys(`*${made}*`)).toEqual([]);
      await page('Cards section');
      expect(
        (await redis.keys(`raseed:catalog:${catalog.config.MONGO_DB}:*cards section*`)).length,
      ).toBeGreaterThan(0);
      // The cache keeps to a database of its own: none of its pages sit among the queues and limits.
      const shared = catalog.service.context.redis;
      expect(await shared.keys(`raseed:catalog:${catalog.config.MONGO_DB}:*`)).toEqual([]);
    } finally {
      redis.disconnect();
    }
  });

  it('takes a product with as many extra fields as the form allows (20), and refuses more', async () => {
    const withFields = (count: number) => {
      let req = catalog
        .http()
        .post('/api/create/product')
        .set('Authorization', admin)
        .field('productName', `Many fields ${count} ${Date.now()}`)
        .field('price', '3')
        .field('category_name', 'Steam');
      for (let i = 0; i < count; i++) {
        req = req
          .field(`fields[${i}][fieldName]`, `field_${i}`)
          .field(`fields[${i}][fieldType]`, 'TEXT')
          .field(`fields[${i}][fieldValue]`, `value ${i}`);
      }
      return req.attach('image', IMAGE);
    };
    const created = await withFields(20).expect(201);
    expect(created.body.product.fields).toHaveLength(20);
    expect((await withFields(21)).status).toBe(400);
  });

  it('creates a category in a section and a product in it with sanitised extra fields', async () => {
    const name = `Gift Boxes ${Date.now()}`;
    const created = await catalog
      .http()
      .post('/api/create/category')
      .set('Authorization', admin)
      .field('categoryName', name)
      .field('section', 'Cards section')
      .attach('image', IMAGE)
      .expect(201);
    expect(created.body).toMatchObject({ categoryStatus: true, message: 'Category created!' });
    const cards = await page('Cards section');
    expect(cards.subcategories.map((s) => s.name)).toContain(name);

    const product = await catalog
      .http()
      .post('/api/create/product')
      .set('Authorization', admin)
      .field('productName', 'Golden Box')
      .field('price', '12.5')
      .field('params', 'Account username')
      .field('category_name', name)
      .field('fields[0][fieldName]', 'valid for (days)!')
      .field('fields[0][fieldType]', 'NUMBER')
      .field('fields[0][fieldValue]', '30')
      .field('fields[1][fieldName]', 'région')
      .field('fields[1][fieldType]', 'TEXT')
      .field('fields[1][fieldValue]', 'MENA')
      .attach('image', IMAGE)
      .expect(201);
    expect(product.body).toMatchObject({ productStatus: true, message: 'Product created!' });
    expect(product.body.product.fields.map((f: { fieldName: string }) => f.fieldName)).toEqual([
      'valid_for__days__',
      'r_gion',
    ]);
    const id = product.body.product.id as string;
    expect(id).toMatch(/^c-/);
    const listed = (await page(name)).products;
    expect(listed).toEqual([
      expect.objectContaining({ id, name: 'Golden Box', price: 12.5, params: ['Account username'] }),
    ]);
    const image = await catalog.http().get(product.body.product.image).expect(200);
    expect(image.headers['content-type']).toBe('image/png');

    await catalog
      .http()
      .put(`/api/products/${id}/availability`)
      .set('Authorization', admin)
      .send({ available: false })
      .expect(200);
    expect((await page(name)).products[0]?.available).toBe(false);
    const repriced = await catalog
      .http()
      .put(`/api/update/product/${id}`)
      .set('Authorization', admin)
      .send({ price: 9.99 })
      .expect(200);
    expect(repriced.body).toMatchObject({ updateStatus: true, message: 'Product updated successfully!' });
    expect((await page(name)).products[0]?.price).toBe(9.99);
    const deleted = await catalog
      .http()
      .delete(`/api/delete/product/${id}`)
      .set('Authorization', admin)
      .expect(200);
    expect(deleted.body).toMatchObject({ deleteStatus: true, message: 'Product deleted successfully!' });
    expect((await page(name)).products).toEqual([]);
  });

  it('sets the profit on every supplier product at once', async () => {
    await catalog
      .http()
      .post('/api/edit-custom-percentage')
      .set('Authorization', admin)
      .send({ percentage: '' })
      .expect(400, {
        success: false,
        error: 'Please enter a percentage',
      });
    await catalog
      .http()
      .post('/api/edit-custom-percentage')
      .set('Authorization', admin)
      .send({ percentage: 25 })
      .expect(200);
    const { body } = await catalog.http().get('/api/custom-products').set('Authorization', admin).expect(200);
    expect(new Set(body.map((c: { percentage: number }) => c.percentage))).toEqual(new Set([1.25]));
    const xbox = (await page('Xbox')).products[0]!;
    const cost = catalog.sim.control.product(xbox.id.slice(2))!.priceMicros;
    expect(xbox.price).toBe(displayPrice(unitPrice(cost, 1.25, null), 6));
  });

  it("gives a supplier category and a supplier product an image of the admin's own", async () => {
    const { body: customs } = await catalog.http().get('/api/custom-categories').expect(200);
    const steam = (customs as { id: string; name: string }[]).find((c) => c.name === 'Steam')!;
    const edit = (id: string) =>
      catalog.http().put(`/api/edit-custom-categories/${id}`).set('Authorization', admin);
    const stored = (await catalog.objects.list('catalog/')).length;
    await edit(steam.id).expect(400, { success: false, error: 'Please select an image to upload.' });
    const spoof = await edit(steam.id).attach('image', Buffer.from('<svg/>'), 'x.png').expect(400);
    expect(spoof.body.error).toBe('Only JPG/JPEG/PNG files are allowed');
    await edit('0123456789abcdef01234567').attach('image', IMAGE).expect(404);
    expect((await catalog.objects.list('catalog/')).length).toBe(stored);

    const { body: edited } = await edit(steam.id).attach('image', IMAGE).expect(200);
    expect(edited).toMatchObject({ id: steam.id, message: 'Category updated successfully.' });
    expect(edited.image).toMatch(/^\/api\/catalog\/images\/[\w-]+\.png$/);
    const image = await catalog.http().get(edited.image).buffer(true).expect(200);
    expect(image.headers['content-type']).toBe('image/png');
    expect(Buffer.compare(image.body as Buffer, readFileSync(IMAGE))).toBe(0);
    const { body: sections } = await catalog.http().get('/api/catalog/sections').expect(200);
    const tiles = (sections as { subcategories: { name: string; image: string }[] }[]).flatMap(
      (s) => s.subcategories,
    );
    expect(tiles.find((t) => t.name === 'Steam')?.image).toBe(edited.image);

    const product = (await page('Steam')).products[0]!;
    const editProduct = () =>
      catalog
        .http()
        .put('/api/edit-custom-products')
        .set('Authorization', admin)
        .field('product_name', product.name);
    await editProduct().expect(400, { success: false, error: 'Send a new profit percentage or an image.' });
    const { body: withImage } = await editProduct().attach('image', IMAGE).expect(200);
    expect(withImage).toMatchObject({ success: true, product_name: product.name });
    expect((await page('Steam')).products.find((p) => p.id === product.id)).toMatchObject({
      image: withImage.category_img,
      price: product.price,
    });
  });

  it('answers bad input with the spec texts and stores nothing', async () => {
    const categories = await catalog.db.collection('categories').countDocuments();
    const products = await catalog.db.collection('products').countDocuments();
    const objects = (await catalog.objects.list('catalog/')).length;
    const form = (fields: Record<string, string>, file?: Buffer | string, filename = 'image.png') => {
      const req = catalog.http().post('/api/create/category').set('Authorization', admin);
      for (const [k, v] of Object.entries(fields)) req.field(k, v);
      if (file) req.attach('image', file, filename);
      return req;
    };
    const cases: [ReturnType<typeof form>, string][] = [
      [
        form({ categoryName: 'Spoof', section: 'Cards section' }, Buffer.from('not an image at all')),
        'Only JPG/JPEG/PNG files are allowed',
      ],
      [
        form({ categoryName: 'Huge', section: 'Cards section' }, Buffer.alloc(4 * 1024 * 1024, 1)),
        'Image must be smaller than 3MB',
      ],
      [
        form({ categoryName: 'x'.repeat(10_000), section: 'Cards section' }, IMAGE as string),
        'At most 80 characters, please.',
      ],
      [
        form({ categoryName: 'No image', section: 'Cards section' }),
        'Please fill all fields and upload an image.',
      ],
      [
        form({ categoryName: 'Nowhere', section: 'No such section' }, IMAGE as string),
        'Choose one of the sections or an existing category.',
      ],
    ];
    for (const [req, error] of cases) {
      const res = await req;
      expect([res.status, res.body.error]).toEqual([400, error]);
    }
    for (const price of ['-1', 'abc', '1e309', '']) {
      const res = await catalog
        .http()
        .post('/api/create/product')
        .set('Authorization', admin)
        .field('productName', 'Bad price')
        .field('price', price)
        .field('category_name', 'Steam')
        .attach('image', IMAGE);
      expect([price, res.status]).toEqual([price, 400]);
      expect(res.body.productStatus).toBe(false);
    }
    const noCategory = await catalog
      .http()
      .post('/api/create/product')
      .set('Authorization', admin)
      .field('productName', 'Orphan')
      .field('price', '1')
      .field('category_name', 'No such category')
      .attach('image', IMAGE)
      .expect(400);
    expect(noCategory.body.error).toBe('Select an existing category or create one first.');
    const bad = await catalog
      .http()
      .put('/api/update/product/c-nothing')
      .set('Authorization', admin)
      .send({ price: 'abc' });
    expect([bad.status, bad.body.error]).toEqual([400, 'Please enter a valid number for the price']);

    expect(await catalog.db.collection('categories').countDocuments()).toBe(categories);
    expect(await catalog.db.collection('products').countDocuments()).toBe(products);
    expect((await catalog.objects.list('catalog/')).length).toBe(objects);
  });

  it('refuses every catalogue write to visitors (401) and customers (403)', async () => {
    const writes: [method: 'post' | 'put' | 'delete', path: string][] = [
      ['post', '/api/create/category'],
      ['post', '/api/create/product'],
      ['put', '/api/categories/0123456789abcdef01234567/availability'],
      ['put', '/api/products/c-1/availability'],
      ['put', '/api/update/product/c-1'],
      ['delete', '/api/delete/product/c-1'],
      ['post', '/api/edit-custom-percentage'],
      ['put', '/api/edit-custom-products'],
      ['put', '/api/edit-custom-categories/0123456789abcdef01234567'],
      ['post', '/api/customproducts'],
      ['post', '/api/customcategories'],
      ['post', '/api/catalog/sync'],
      ['put', '/api/catalog/sections/Games%20section/image'],
      ['delete', '/api/catalog/sections/Games%20section/image'],
    ];
    const body = { available: false, price: 1, percentage: 5 };
    for (const [method, path] of writes) {
      const visitor = await catalog.http()[method](path).send(body);
      const asCustomer = catalog.http()[method](path);
      const user = await asCustomer.set('Authorization', customer.token).send(body);
      expect([path, visitor.status, user.status]).toEqual([path, 401, 403]);
    }
  });
});

describe('the pictures of the home sections', () => {
  type Tile = { name: string; image: string; custom_image: string | null };
  const tiles = async () => {
    const { body } = await catalog.http().get('/api/catalog/sections').expect(200);
    return body as Tile[];
  };
  const tile = async (name: string) => (await tiles()).find((t) => t.name === name);
  const picture = (name: string) =>
    catalog.http().put(`/api/catalog/sections/${encodeURIComponent(name)}/image`);
  const artwork = (name: string) =>
    catalog.http().delete(`/api/catalog/sections/${encodeURIComponent(name)}/image`);

  it("shows an admin's picture for a section on the home read, then the store's artwork again", async () => {
    expect(await tile('Games section')).toMatchObject({ image: '/images/image.png', custom_image: null });

    // The name is matched without case; the answer spells it as the store does.
    const { body: set } = await picture('games SECTION').set('Authorization', admin).attach('image', IMAGE);
    expect(set).toMatchObject({ success: true, name: 'Games section', message: 'Section image updated.' });
    expect(set.custom_image).toMatch(/^\/api\/catalog\/images\/[\w-]+\.png$/);
    const image = await catalog.http().get(set.custom_image).buffer(true).expect(200);
    expect(Buffer.compare(image.body as Buffer, readFileSync(IMAGE))).toBe(0);
    expect(await tile('Games section')).toMatchObject({
      image: set.custom_image,
      custom_image: set.custom_image,
    });
    expect((await tiles()).filter((t) => t.custom_image).map((t) => t.name)).toEqual(['Games section']);

    // The Arabic section by its own name, URL-encoded.
    const arabic = 'قسم الرصيد والباقات';
    const { body: own } = await picture(arabic)
      .set('Authorization', admin)
      .attach('image', IMAGE)
      .expect(200);
    expect(await tile(arabic)).toMatchObject({ custom_image: own.custom_image });

    const { body: reset } = await artwork('Games section').set('Authorization', admin).expect(200);
    expect(reset).toEqual({
      success: true,
      name: 'Games section',
      custom_image: null,
      message: 'The section shows our artwork again.',
    });
    expect(await tile('Games section')).toMatchObject({ image: '/images/image.png', custom_image: null });
    // Going back twice is no error.
    await artwork('Games section').set('Authorization', admin).expect(200);
    await artwork(arabic).set('Authorization', admin).expect(200);
    expect((await tiles()).every((t) => t.custom_image === null)).toBe(true);
  });

  it('refuses unknown sections (404), bad images (400), visitors (401) and customers (403), changing nothing', async () => {
    const { body: kept } = await picture('Cards section')
      .set('Authorization', admin)
      .attach('image', IMAGE)
      .expect(200);
    const before = await tiles();
    const objects = (await catalog.objects.list('catalog/')).length;
    const stored = await catalog.db.collection('section_images').find().toArray();

    await picture('No such section')
      .set('Authorization', admin)
      .attach('image', IMAGE)
      .expect(404, { success: false, error: 'Section not found' });
    await artwork('No such section')
      .set('Authorization', admin)
      .expect(404, { success: false, error: 'Section not found' });
    await picture('Cards section')
      .set('Authorization', admin)
      .expect(400, { success: false, error: 'Please select an image to upload.' });
    const cases: [Buffer, string][] = [
      [Buffer.from('not an image at all'), 'Only JPG/JPEG/PNG files are allowed'],
      [Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), 'Only JPG/JPEG/PNG files are allowed'],
      [Buffer.alloc(4 * 1024 * 1024, 1), 'Image must be smaller than 3MB'],
    ];
    for (const [file, error] of cases) {
      const res = await picture('Cards section').set('Authorization', admin).attach('image', file, 'x.png');
      expect([res.status, res.body.error]).toEqual([400, error]);
    }
    for (const [who, status] of [
      [undefined, 401],
      [customer.token, 403],
    ] as const) {
      const put = picture('Cards section');
      const del = artwork('Cards section');
      if (who) {
        put.set('Authorization', who);
        del.set('Authorization', who);
      }
      expect([(await put.attach('image', IMAGE)).status, (await del).status]).toEqual([status, status]);
    }

    expect(await tiles()).toEqual(before);
    expect((await tile('Cards section'))?.custom_image).toBe(kept.custom_image);
    expect((await catalog.objects.list('catalog/')).length).toBe(objects);
    expect(await catalog.db.collection('section_images').find().toArray()).toEqual(stored);
    await artwork('Cards section').set('Authorization', admin).expect(200);
  });
});
