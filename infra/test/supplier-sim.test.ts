import { SECTIONS, startSupplierSim, type RunningSupplierSim } from '@raseed/supplier-sim';

/** The simulated supplier over HTTP, exactly as the services and a developer's curl see it. */

const TOKEN = 'supplier-sim-test-token';
let sim: RunningSupplierSim;

beforeAll(async () => {
  sim = await startSupplierSim({ token: TOKEN });
});
afterAll(() => sim.stop());

interface Answer {
  status: number;
  type: string;
  body: unknown;
}

async function call(
  method: string,
  path: string,
  { body, headers = {} }: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const res = await fetch(`${sim.url}${path}`, {
    method,
    headers: { 'api-token': TOKEN, 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Some scenarios answer with text on purpose.
  }
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: parsed };
}

interface Product {
  id: number;
  name: string;
  price: number;
  category_name: string;
  category_img: string;
  params: string[];
  qty_values: { min: number; max: number } | null;
  available: boolean;
}

interface Placed {
  status: string;
  data: { order_id: string; status: string; price: number };
  replay_api: { replay: string[] }[];
}

interface Checked {
  status: string;
  data: { order_id: string; order_uuid: string | null; status: string; replay_api: { replay: string[] }[] }[];
}

const products = async () => (await call('GET', '/client/api/products')).body as Product[];
const firstOf = async (category: string) =>
  (await products()).find((p) => p.category_name === category && p.available) as Product;
const place = (productId: number, query: string, headers?: Record<string, string>) =>
  call('POST', `/client/api/newOrder/${productId}/params?${query}`, { headers });
const check = async (ids: string[], byUuid = false) =>
  (
    await call(
      'GET',
      `/client/api/check?orders=${ids.map(encodeURIComponent).join(',')}&uuid=${byUuid ? 1 : 0}`,
    )
  ).body as Checked;
const ordersPlaced = async () =>
  ((await call('GET', '/sim/orders')).body as { data: { order_uuid: string; checks: number }[] }).data;

beforeEach(async () => {
  expect((await call('POST', '/sim/reset')).status).toBe(200);
});

describe('supplier simulator', () => {
  it('answers only callers with the token, except its health and its images', async () => {
    for (const headers of [{ 'api-token': '' }, { 'api-token': 'wrong' }]) {
      for (const path of ['/client/api/products', '/client/api/check?orders=1', '/sim/orders']) {
        const answer = await call('GET', path, { headers });
        expect(answer).toMatchObject({ status: 401, body: { status: 'ERROR', message: 'Invalid token' } });
      }
    }
    expect((await fetch(`${sim.url}/healthz`)).status).toBe(200);
  });

  it('lists a few hundred products of every section in the contract shape', async () => {
    const list = await products();
    expect(list.length).toBeGreaterThanOrEqual(200);
    for (const categories of Object.values(SECTIONS)) {
      for (const category of categories) expect(list.map((p) => p.category_name)).toContain(category);
    }
    for (const p of list) {
      expect(Number.isInteger(p.id)).toBe(true);
      expect(p.price).toBeGreaterThan(0);
      expect(String(p.price)).toMatch(/^\d+(\.\d{1,6})?$/);
      expect(p.category_img).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/images\/[a-z0-9-]+\.png$/);
    }
    const paramsOf = (category: string) => list.find((p) => p.category_name === category)?.params;
    expect(paramsOf('PUBG Mobile')).toEqual(['Player ID']);
    expect(paramsOf('Tarneeb')).toEqual(['Player ID', 'Server']);
    expect(paramsOf('Steam')).toEqual([]);
    const views = list.find((p) => p.category_name === 'YouTube Views');
    expect(views?.qty_values).toEqual({ min: 500, max: 50_000 });
    expect(views?.price).toBeLessThan(0.01);
    expect(list.filter((p) => !p.available).length).toBeGreaterThan(0);
    expect(new Set(list.map((p) => p.name)).size).toBe(list.length);
  });

  it('serves each category image as a PNG, without the token', async () => {
    const res = await fetch((await firstOf('Netflix')).category_img);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(
      Buffer.from(await res.arrayBuffer())
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');
    expect((await fetch(`${sim.url}/images/..%2Fsecret`)).status).toBe(404);
  });

  it('generates any catalogue size the same way every time, and resets to the seeded one', async () => {
    const seeded = await products();
    expect((await call('POST', '/sim/catalogue', { body: { size: 10_000 } })).status).toBe(200);
    const large = await products();
    expect(large).toHaveLength(10_000);
    expect(large.slice(0, seeded.length)).toEqual(seeded);
    await call('POST', '/sim/reset');
    expect(await products()).toEqual(seeded);
  });

  it('changes one product on demand', async () => {
    const [product] = await products();
    const answer = await call('PUT', `/sim/products/${product?.id}`, {
      body: { price: 0.912345, available: false },
    });
    expect(answer.status).toBe(200);
    expect((await products())[0]).toMatchObject({ id: product?.id, price: 0.912345, available: false });
    expect((await call('PUT', '/sim/products/1', { body: { price: 1 } })).status).toBe(404);
  });

  it('places one order per order_uuid, however often it is sent', async () => {
    const game = await firstOf('Free Fire');
    const query = 'qty=2&order_uuid=sim-once&Player%20ID=777';
    const first = await place(game.id, query);
    const again = await place(game.id, query);

    expect(first.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect((first.body as Placed).data.price).toBeCloseTo(game.price * 2, 6);
    expect((await ordersPlaced()).map((o) => o.order_uuid)).toEqual(['sim-once']);
  });

  it('by default answers wait on the first two checks and OK with a reply on the third', async () => {
    const card = await firstOf('Steam');
    const placed = (await place(card.id, 'order_uuid=sim-polled')).body as Placed;
    expect(placed).toMatchObject({ status: 'OK', data: { status: 'wait' }, replay_api: [] });

    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await check([placed.data.order_id])).data[0]);
    expect(statuses.map((s) => s?.status)).toEqual(['wait', 'wait', 'OK']);
    expect(statuses[2]?.replay_api[0]?.replay[0]).toMatch(/^[0-9A-F]{4}(-[0-9A-F]{4}){3}$/);
    expect(await ordersPlaced()).toEqual([expect.objectContaining({ order_uuid: 'sim-polled', checks: 3 })]);
  });

  it('checks by our uuids, leaves unknown ids out, and takes at most 100 ids', async () => {
    const card = await firstOf('iTunes');
    await place(card.id, 'order_uuid=sim-a', { 'x-sim-scenario': 'complete' });
    const found = await check(['sim-a', 'sim-unknown'], true);
    expect(found.data).toEqual([expect.objectContaining({ order_uuid: 'sim-a', status: 'OK' })]);
    expect((await check(['sim-a'])).data).toEqual([]);

    const tooMany = Array.from({ length: 101 }, (_, i) => String(i));
    expect(await call('GET', `/client/api/check?orders=${tooMany.join(',')}`)).toMatchObject({
      status: 400,
      body: { status: 'ERROR', message: 'At most 100 orders per call' },
    });
  });

  it('rejects with the reason a scenario gives, per request or per product', async () => {
    const game = await firstOf('Jawaker');
    const perRequest = await place(game.id, 'order_uuid=sim-r1&Player%20ID=1', {
      'x-sim-scenario': 'reject:Invalid player id',
    });
    expect(perRequest.body).toMatchObject({
      data: { status: 'reject' },
      replay_api: [{ replay: ['Invalid player id'] }],
    });

    await call('PUT', `/sim/scenarios/${game.id}`, { body: { scenario: 'reject:Out of stock' } });
    const perProduct = (await place(game.id, 'order_uuid=sim-r2&Player%20ID=1')).body as Placed;
    expect(perProduct.replay_api).toEqual([{ replay: ['Out of stock'] }]);
    expect((await check(['sim-r2'], true)).data[0]?.status).toBe('reject');

    await call('DELETE', '/sim/scenarios');
    expect(((await place(game.id, 'order_uuid=sim-r3&Player%20ID=1')).body as Placed).data.status).toBe(
      'wait',
    );
  });

  it('refuses orders it cannot take, in its own error shape', async () => {
    const followers = await firstOf('Instagram Followers');
    const game = await firstOf('Clash Royale');
    const cases: [number, string, number, string][] = [
      [999_999, 'qty=1', 404, 'Product not found'],
      [followers.id, 'qty=50&Link=x', 400, 'Quantity must be between 100 and 10000'],
      [followers.id, 'qty=100', 400, 'Missing parameter: Link'],
      [game.id, 'qty=1.5&Player%20ID=1', 400, 'Quantity must be a whole number'],
    ];
    for (const [id, query, status, message] of cases) {
      expect(await place(id, query)).toMatchObject({ status, body: { status: 'ERROR', message } });
    }
    await call('PUT', `/sim/products/${game.id}`, { body: { available: false } });
    expect((await place(game.id, 'Player%20ID=1')).body).toEqual({
      status: 'ERROR',
      message: 'Product is not available',
    });
    expect(await ordersPlaced()).toEqual([]);
  });

  it('holds a timed-out order call open, yet records the order', async () => {
    const card = await firstOf('Xbox');
    await call('PUT', `/sim/scenarios/${card.id}`, { body: { scenario: 'timeout' } });
    const attempt = fetch(`${sim.url}/client/api/newOrder/${card.id}/params?order_uuid=sim-slow`, {
      method: 'POST',
      headers: { 'api-token': TOKEN },
      signal: AbortSignal.timeout(200),
    });
    await expect(attempt).rejects.toMatchObject({ name: 'TimeoutError' });
    expect((await check(['sim-slow'], true)).data).toHaveLength(1);
  });

  it('shows a late order to checks only seconds after its call timed out, then completed', async () => {
    const card = await firstOf('Xbox');
    const attempt = fetch(`${sim.url}/client/api/newOrder/${card.id}/params?order_uuid=sim-late`, {
      method: 'POST',
      headers: { 'api-token': TOKEN, 'x-sim-scenario': 'late:1' },
      signal: AbortSignal.timeout(200),
    });
    await expect(attempt).rejects.toMatchObject({ name: 'TimeoutError' });
    expect((await check(['sim-late'], true)).data).toEqual([]);
    await new Promise((r) => setTimeout(r, 1000));
    const [late] = (await check(['sim-late'], true)).data;
    expect(late).toMatchObject({ order_uuid: 'sim-late', status: 'OK' });
    expect(late?.replay_api[0]?.replay[0]).toMatch(/^[0-9A-F]{4}(-[0-9A-F]{4}){3}$/);
  });

  it('answers OK with a code, then reports the order rejected; or waits for ever', async () => {
    const card = await firstOf('Steam');
    const placed = (await place(card.id, 'order_uuid=sim-fickle', { 'x-sim-scenario': 'ok-then-reject:1' }))
      .body as Placed;
    expect(placed).toMatchObject({ data: { status: 'OK' }, replay_api: [{ replay: [expect.any(String)] }] });
    const statuses = [];
    for (let i = 0; i < 2; i++) statuses.push((await check(['sim-fickle'], true)).data[0]);
    expect(statuses.map((s) => s?.status)).toEqual(['OK', 'reject']);
    expect(statuses[1]?.replay_api).toEqual([{ replay: ['Cancelled by the supplier'] }]);

    await place(card.id, 'order_uuid=sim-forever', { 'x-sim-scenario': 'wait' });
    for (let i = 0; i < 5; i++) await check(['sim-forever'], true);
    expect((await check(['sim-forever'], true)).data[0]).toMatchObject({ status: 'wait', replay_api: [] });
  });

  it('answers 500 with text and records nothing, or 200 with garbage', async () => {
    const card = await firstOf('PlayStation');
    const failed = await place(card.id, 'order_uuid=sim-500', { 'x-sim-scenario': 'error500' });
    expect(failed).toMatchObject({ status: 500, type: expect.stringContaining('text/plain') });
    expect((await check(['sim-500'], true)).data).toEqual([]);

    const garbled = await place(card.id, 'order_uuid=sim-garbage', { 'x-sim-scenario': 'garbage' });
    expect(garbled).toMatchObject({ status: 200, body: { foo: 1 } });
    const html = await call('GET', '/client/api/check?orders=1', {
      headers: { 'x-sim-scenario': 'garbage:html' },
    });
    expect(html).toMatchObject({ status: 200, type: expect.stringContaining('text/html') });
  });

  it('fails the product list and the checks as the control API asks, until the scenarios are cleared', async () => {
    await call('PUT', '/sim/catalogue-scenario', { body: { scenario: 'error500' } });
    await call('PUT', '/sim/check-scenario', { body: { scenario: 'garbage' } });
    expect((await call('GET', '/client/api/products')).status).toBe(500);
    expect((await call('GET', '/client/api/check?orders=1')).body).toEqual({ foo: 1 });

    await call('DELETE', '/sim/scenarios');
    expect((await call('GET', '/client/api/products')).status).toBe(200);
    expect((await call('GET', '/client/api/check?orders=1')).body).toEqual({ status: 'OK', data: [] });
  });

  it('refuses bad control calls and keeps running', async () => {
    const [product] = await products();
    const refusals = [
      await call('PUT', `/sim/scenarios/${product?.id}`, { body: { scenario: 'explode' } }),
      await call('PUT', '/sim/catalogue-scenario', { body: { scenario: 'complete' } }),
      await call('POST', '/sim/catalogue', { body: { size: -3 } }),
      await call('PUT', `/sim/products/${product?.id}`, { body: { price: 'cheap' } }),
      await call('GET', '/client/api/products', { headers: { 'x-sim-scenario': 'after-polls:x' } }),
    ];
    for (const answer of refusals) expect(answer).toMatchObject({ status: 400, body: { status: 'ERROR' } });
    const res = await fetch(`${sim.url}/sim/catalogue`, {
      method: 'POST',
      headers: { 'api-token': TOKEN, 'content-type': 'application/json' },
      body: '{"size":',
    });
    expect(res.status).toBe(400);
    expect((await call('GET', '/client/api/products')).status).toBe(200);
  });
});
