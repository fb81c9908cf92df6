/**
 * npm run test:security (issue 16): the whole store through its gateway, attacked as the routing
 * table says it can be. Every route comes from the services' own route lists (ApiRoutes.specs)
 * and every prefix from the gateway's routing table, so a new route is checked the day it is
 * mounted; every field comes from the OpenAPI document the gateway serves.
 */
import { ApiRoutes, signSession, type Access, type RouteSpec } from '@raseed/kit';
import { uniqueName, waitForEmail } from '@raseed/kit/testing';
import fc from 'fast-check';
import jwt from 'jsonwebtoken';
import { Types } from 'mongoose';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import supertest from 'supertest';
import { PASSWORD, startStore, type Store } from '../../frontend/test/support/store';
import { routingTable, serviceFor } from '../../gateway/src/routes';
import { IMAGE } from '../../services/catalog/test/support';
import { freshReceipt } from '../../services/payments/test/support';
import {
  bodyText,
  documentedRoutes,
  edgeValue,
  plausible,
  queryText,
  refusedValue,
  type DocumentedRoute,
} from './security/fuzz';
import {
  base64url,
  claimsOf,
  counted,
  digest,
  Findings,
  randomAddress,
  raw,
  settledDigest,
  tally,
  type RawAnswer,
} from './security/support';

jest.setTimeout(240_000);

const STOREFRONT = '<!doctype html><title>storefront marker</title>';
/** One seed for every generated case, printed so a run can be replayed: SECURITY_SEED=<n>. */
const SEED = Number(process.env.SECURITY_SEED ?? Date.now() % 2 ** 31);
const SIGNIN_ADDRESS_FAILURES = 20;
const started = Date.now();

// The services' route lists: every ApiRoutes the store builds, seen as it mounts its routes.
const mounting = jest.spyOn(ApiRoutes.prototype, 'route');

let store: Store;
let frontendDir: string;
let specs: RouteSpec[];
let databases: Parameters<typeof digest>[0];
/** This file's own client address (TRUST_PROXY is loopback): no other file's tries count on it. */
const home = randomAddress();

type UserDoc = { _id: unknown; username: string; email: string; role: 'user' | 'admin'; phone: string };
const secret = () => store.services.auth.config.JWT_SECRET;
const claims = (u: UserDoc) => ({
  id: String(u._id),
  username: u.username,
  email: u.email,
  role: u.role,
  phone: u.phone,
  percentage: null,
});
/** A session as auth signs one, signed now: a logout by an earlier test ends none signed after it. */
const mint = (u: UserDoc) => signSession(claims(u), secret(), 3600);

async function userDoc(email: string): Promise<UserDoc> {
  const doc = await store.services.auth.db.collection('users').findOne({ email: email.toLowerCase() });
  if (!doc) throw new Error(`no user ${email}`);
  return doc as unknown as UserDoc;
}

const xhr = { 'X-Requested-With': 'XMLHttpRequest' };
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** A JSON request through the gateway, from this file's address unless told. */
function call(
  method: string,
  target: string,
  headers: Record<string, string> = {},
  body?: unknown,
  address = home,
): Promise<RawAnswer> {
  const text = body === undefined ? undefined : typeof body === 'string' ? body : bodyText(body);
  return raw(
    store.url,
    method.toUpperCase(),
    target,
    {
      ...xhr,
      'X-Forwarded-For': address,
      ...(text !== undefined && { 'content-type': 'application/json' }),
      ...headers,
    },
    text,
  );
}

const multipart = (target: string, headers: Record<string, string>, address = home) =>
  supertest(store.url).post(target).set(xhr).set('X-Forwarded-For', address).set(headers);

interface Customer {
  doc: UserDoc;
  id: string;
  email: string;
}
let admin: UserDoc;
let customer: Customer;
let other: Customer;
let customerPayment: string;

async function newCustomer(): Promise<Customer> {
  const c = await store.newCustomer();
  return { doc: await userDoc(c.email), id: c.id, email: c.email };
}

/** A second admin, made by the first through the store, and their session from signing in. */
async function newAdmin(): Promise<{ doc: UserDoc; token: string }> {
  const email = `${uniqueName('admin')}@example.com`;
  const res = await call('POST', '/api/create-admin', bearer(mint(admin)), {
    username: uniqueName('admin'),
    email,
    phone: '+961 70 123456',
    password: PASSWORD,
  });
  expect(res.status).toBe(201);
  return { doc: await userDoc(email), token: await store.signIn(email) };
}

async function resetPassword(email: string): Promise<void> {
  const before = (await waitForEmail(email, 1, 0).catch(() => [])).length;
  expect((await call('POST', '/api/reset-password-request', {}, { email }, randomAddress())).status).toBe(
    200,
  );
  const mails = await waitForEmail(email, 20_000, before);
  const token = (mails[mails.length - 1]?.text ?? '').match(/\/reset-password\/([\w-]+)/)?.[1];
  if (!token) throw new Error(`no reset link reached ${email}`);
  const res = await call('POST', `/api/reset-password/${token}`, {}, { newPassword: 'another-horse-7' });
  expect(res.status).toBe(200);
}

async function topUp(email: string, file: Buffer | string = freshReceipt()) {
  const doc = await userDoc(email);
  return multipart('/api/payments', bearer(mint(doc)))
    .field('product_name', 'Binance')
    .field('amount', '5')
    .attach('image', file, 'receipt.png');
}

beforeAll(async () => {
  frontendDir = fs.mkdtempSync(path.join(os.tmpdir(), 'raseed-security-'));
  fs.writeFileSync(path.join(frontendDir, 'index.html'), STOREFRONT);
  store = await startStore({
    frontendDir,
    gateway: {
      TRUST_PROXY: 'loopback',
      SIGNIN_ADDRESS_FAILURES: String(SIGNIN_ADDRESS_FAILURES),
      AUTH_RATE_LIMIT: '10000',
    },
  });
  const apis = new Set(mounting.mock.contexts as ApiRoutes[]);
  mounting.mockRestore();
  specs = [...apis].flatMap((api) => api.specs);
  const s = store.services;
  databases = {
    auth: s.auth.db,
    wallet: s.money.wallet.db,
    payments: s.money.db,
    catalog: s.catalog.db,
    orders: s.orders.db,
  };
  admin = await userDoc(store.adminEmail);
  [customer, other] = await Promise.all([newCustomer(), newCustomer()]);
  const res = await topUp(customer.email);
  expect(res.status).toBe(201);
  customerPayment = res.body.payment.id as string;
  console.log(`security suite: seed ${SEED} (replay with SECURITY_SEED=${SEED})`);
});

afterAll(async () => {
  await store?.stop();
  fs.rmSync(frontendDir, { recursive: true, force: true });
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  console.log(
    `security summary: ${tally.cells} route × caller cells checked, ${tally.fuzzCases} fuzz cases, ` +
      `${tally.pathCases} path spellings, ${tally.failures} failures, ${seconds} s\n` +
      `${tally.passed} passed, ${tally.failed} failed`,
  );
});

describe('the route lists', () => {
  it(
    'route every public route through the gateway, and every prefix to routes of one service',
    counted(async () => {
      const findings = new Findings();
      expect(specs.length).toBeGreaterThan(40);
      const internal = specs.filter((s) => s.access === 'internal');
      expect(internal.length).toBeGreaterThan(0);
      for (const spec of specs) {
        const routed = serviceFor(concrete(spec.path));
        if (spec.access === 'internal')
          findings.check(!routed, `${spec.path} is internal but routed to ${routed}`);
        else
          findings.check(
            !!routed,
            `${spec.method} ${spec.path} is mounted but the gateway routes it nowhere`,
          );
      }
      for (const [service, prefixes] of Object.entries(routingTable)) {
        for (const prefix of prefixes) {
          const owned = specs.filter((s) => s.path === prefix || s.path.startsWith(`${prefix}/`));
          findings.check(
            owned.length > 0,
            `the gateway sends ${prefix} to ${service}, which mounts nothing there`,
          );
        }
      }
      expect(findings.list).toEqual([]);
    }),
  );
});

// ---------------------------------------------------------------- the authorisation matrix

type CallerName =
  | 'visitor'
  | 'customer'
  | 'another customer'
  | 'admin'
  | 'deleted admin'
  | 'after logout'
  | 'after reset'
  | 'expired'
  | 'alg none'
  | 'wrong key'
  | 'tampered claims';
const ENDED: CallerName[] = [
  'deleted admin',
  'after logout',
  'after reset',
  'expired',
  'alg none',
  'wrong key',
  'tampered claims',
];

/** A user id, payment id or other value for each path parameter, as the caller would fill it in. */
function concrete(specPath: string, caller?: CallerName, method?: string): string {
  return specPath.replace(/\{(\w+)\}/g, (_m, name: string) => {
    // An admin's deletion aims at no one real: the matrix must not delete the people it uses.
    if (caller === 'admin' && method === 'delete') return new Types.ObjectId().toString();
    if (/^\/api\/(users|userdiscount|profile)\//.test(specPath)) return customer?.id ?? 'user';
    if (specPath.startsWith('/api/payments/{id}')) return customerPayment ?? 'payment';
    if (name === 'token') return randomBytes(24).toString('hex');
    if (name === 'name') return 'Steam';
    if (name === 'file') return 'nothing-here.png';
    return new Types.ObjectId().toString();
  });
}

/** Routes where a customer may act only on their own: someone else's id in the path or the body. */
const owned = (spec: RouteSpec) =>
  /^\/api\/(users|userdiscount|profile)\/\{|^\/api\/payments\/\{id\}/.test(spec.path) || bodyNamesUser(spec);
const bodyNamesUser = (spec: RouteSpec) => {
  const shape = (spec.body as { shape?: Record<string, unknown> } | undefined)?.shape ?? {};
  return 'userId' in shape || 'user_id' in shape;
};

type Expected = 'allowed' | 'unauthenticated' | 'forbidden' | 'not yours' | 'unreachable';

function expected(access: Access, caller: CallerName, spec: RouteSpec): Expected {
  if (access === 'internal') return 'unreachable';
  if (access === 'public') return 'allowed';
  if (caller === 'visitor' || ENDED.includes(caller)) return 'unauthenticated';
  if (access === 'admin') return caller === 'admin' ? 'allowed' : 'forbidden';
  return caller === 'another customer' && owned(spec) ? 'not yours' : 'allowed';
}

function meets(want: Expected, res: RawAnswer, method: string): boolean {
  if (res.status >= 500) return false;
  switch (want) {
    case 'allowed':
      return res.status !== 401 && res.status !== 403;
    case 'unauthenticated':
      return res.status === 401;
    case 'forbidden':
      return res.status === 403;
    case 'not yours':
      return res.status === 403 || res.status === 404;
    case 'unreachable':
      // The gateway's own 404 (its JSON, or Express's page for another method), or for a page
      // visit the storefront's index: never the answer of a service that ran the route.
      return (
        (res.status === 404 &&
          (JSON.stringify(res.json) === '{"error":"Not found"}' || res.text.includes('Cannot '))) ||
        (method === 'get' && res.status === 200 && res.text === STOREFRONT)
      );
  }
}

// ---------------------------------------------------------------- injection and shape fuzzing

describe('injection and shape fuzzing of every documented field', () => {
  let routes: DocumentedRoute[];
  const RUNS = { refused: 8, edge: 4, params: 3 };

  beforeAll(async () => {
    const res = await call('GET', '/api/docs/openapi.json');
    expect(res.status).toBe(200);
    routes = documentedRoutes(res.json as Parameters<typeof documentedRoutes>[0]);
  });

  /** The route's spec, for who may call it; the fuzzer calls as the least caller that passes the guard. */
  function callerFor(route: DocumentedRoute): Record<string, string> {
    const spec = specs.find((s) => s.method === route.method && s.path === route.path);
    if (!spec) throw new Error(`${route.method} ${route.path} is documented but not mounted`);
    if (spec.access === 'admin') return bearer(mint(admin));
    if (spec.access === 'user') return bearer(mint(customer.doc));
    return {};
  }

  function request(route: DocumentedRoute, field: string | undefined, value: unknown, whole?: unknown) {
    const query: Record<string, unknown> = {};
    const body: Record<string, unknown> = {};
    for (const f of route.fields) (f.where === 'query' ? query : body)[f.name] = plausible(f.schema);
    const target = route.fields.find((f) => f.name === field);
    if (target) (target.where === 'query' ? query : body)[target.name] = value;
    const qs = queryText(query);
    const pathname = concrete(route.path);
    return call(
      route.method,
      qs ? `${pathname}?${qs}` : pathname,
      callerFor(route),
      route.method === 'get' ? undefined : (whole ?? body),
      randomAddress(),
    );
  }

  it(
    'refuses operator objects, arrays, oversized and non-numbers with 4xx, never 5xx, and changes nothing',
    counted(async () => {
      const findings = new Findings();
      const before = await settledDigest(databases);
      let cases = 0;
      for (const route of routes) {
        const state = route.method !== 'get';
        const judge = (res: RawAnswer, what: string) => {
          cases++;
          findings.check(
            res.status < 500 && (!state || (res.status >= 400 && res.status < 500)),
            `${route.method.toUpperCase()} ${route.path} ${what}: ${res.status} ${res.text.slice(0, 120)}`,
          );
        };
        if (route.fields.length) {
          const arb = fc.oneof(
            ...route.fields.map((f) => fc.tuple(fc.constant(f.name), refusedValue(f.schema))),
          );
          for (const [field, value] of fc.sample(arb, { numRuns: RUNS.refused, seed: SEED })) {
            judge(await request(route, field, value), `${field}=${JSON.stringify(value).slice(0, 60)}`);
          }
        }
        if (state && route.hasBody) {
          for (const whole of [
            '[]',
            '[{"$gt":""}]',
            '"text"',
            'null',
            '{"a":',
            `{"x":"${'y'.repeat(200_000)}"}`,
          ]) {
            judge(await request(route, undefined, undefined, whole), `body ${whole.slice(0, 30)}`);
          }
        }
        // Reads take edge values too: a read changes nothing, whatever it is asked.
        if (!state && route.fields.length) {
          const arb = fc.tuple(fc.constantFrom(...route.fields.map((f) => f.name)), edgeValue());
          for (const [field, value] of fc.sample(arb, { numRuns: RUNS.edge, seed: SEED })) {
            judge(await request(route, field, value), `${field}=${JSON.stringify(value)?.slice(0, 60)}`);
          }
        }
      }
      tally.fuzzCases += cases;
      console.log(`fuzz: ${cases} refused-shape cases over ${routes.length} documented routes`);
      expect(cases).toBeGreaterThan(routes.length);
      expect(findings.list).toEqual([]);
      expect(await digest(databases)).toBe(before);
    }),
  );

  it(
    'answers edge values (unicode, -0, 2^53+1, many decimals) in state-changing fields without a 5xx',
    counted(async () => {
      const findings = new Findings();
      let cases = 0;
      for (const route of routes.filter((r) => r.method !== 'get' && r.fields.length)) {
        // Sign-up and create-admin would keep the accounts an edge name is allowed to make; fine.
        const arb = fc.tuple(fc.constantFrom(...route.fields.map((f) => f.name)), edgeValue());
        for (const [field, value] of fc.sample(arb, { numRuns: RUNS.edge, seed: SEED + 1 })) {
          const res = await request(route, field, value);
          cases++;
          findings.check(
            res.status < 500,
            `${route.method.toUpperCase()} ${route.path} ${field}=${JSON.stringify(value)?.slice(0, 60)}: ${res.status} ${res.text.slice(0, 120)}`,
          );
        }
      }
      tally.fuzzCases += cases;
      console.log(`fuzz: ${cases} edge-value cases`);
      expect(cases).toBeGreaterThan(0);
      expect(findings.list).toEqual([]);
    }),
  );

  it(
    'answers hostile path parameters with 4xx, never 5xx, and changes nothing',
    counted(async () => {
      const findings = new Findings();
      const before = await settledDigest(databases);
      const hostile = fc.constantFrom(
        '{"$gt":""}',
        '[$ne]=1',
        '..',
        'a'.repeat(3000),
        'ü𝔘😀',
        '\u0000',
        '-0',
        '1e309',
        'NaN',
      );
      let cases = 0;
      for (const route of routes.filter((r) => r.path.includes('{'))) {
        for (const value of fc.sample(hostile, { numRuns: RUNS.params, seed: SEED + 2 })) {
          const target = route.path.replace(/\{\w+\}/g, encodeURIComponent(value));
          const res = await call(
            route.method,
            target,
            callerFor(route),
            route.method === 'get' ? undefined : {},
          );
          cases++;
          findings.check(
            res.status < 500 && (route.method === 'get' || res.status >= 400),
            `${route.method.toUpperCase()} ${target.slice(0, 80)}: ${res.status} ${res.text.slice(0, 120)}`,
          );
        }
      }
      tally.fuzzCases += cases;
      expect(cases).toBeGreaterThan(0);
      expect(findings.list).toEqual([]);
      expect(await digest(databases)).toBe(before);
    }),
  );
});

// ---------------------------------------------------------------- paths

describe('request paths', () => {
  /** Every way of writing the path that another parser could read as the path itself. */
  function spellings(p: string): string[] {
    const [, first = '', ...rest] = p.split('/');
    const tail = rest.join('/');
    const port = new URL(store.url).port;
    return [
      `/${first}\\${tail}`,
      `${p}\\`,
      `\\${first}/${tail}`,
      `/${first}%2f${tail}`,
      `/${first}%2F${tail}`,
      `/${first}%5c${tail}`,
      `/${first}/./${tail}`,
      `/${first}/x/../${tail}`,
      `/${first}/%2e%2e/${first}/${tail}`,
      `/x/..${p}`,
      `//${first}/${tail}`,
      `/${first}//${tail}`,
      `${p.toUpperCase()}`,
      `/${first.toUpperCase()}/${tail}`,
      `/${first}/${tail.charAt(0).toUpperCase()}${tail.slice(1)}`,
      `http://127.0.0.1:${port}${p}`,
      `HTTP://evil.example${p}`,
    ];
  }

  it(
    'answers every other spelling of a routed path with 400 or 404, as the admin, changing nothing',
    counted(async () => {
      const findings = new Findings();
      const before = await settledDigest(databases);
      const token = bearer(mint(admin));
      let cases = 0;
      for (const spec of specs.filter((s) => s.access !== 'internal')) {
        for (const target of spellings(concrete(spec.path))) {
          const res = await call(spec.method, target, token, spec.method === 'get' ? undefined : {}).catch(
            (err: Error) => ({ status: 0, text: err.message }),
          );
          cases++;
          findings.check(
            res.status === 400 || res.status === 404,
            `${spec.method.toUpperCase()} ${target}: ${res.status} ${res.text.slice(0, 100)}`,
          );
        }
      }
      tally.pathCases += cases;
      expect(findings.list).toEqual([]);
      expect(await digest(databases)).toBe(before);
    }),
  );

  it(
    'never lets a spelling of /api/signin past the limits: none of them reaches auth',
    counted(async () => {
      const victim = await store.services.auth.newCustomer();
      const wrong = { email: victim.email, password: 'wrong-password-1' };
      const findings = new Findings();
      for (const target of [...spellings('/api/signin'), '/api/signin;x', '/api/signinx', '/api/signin%00']) {
        const res = await call('POST', target, {}, wrong, randomAddress());
        tally.pathCases++;
        findings.check(res.status === 400 || res.status === 404, `POST ${target}: ${res.status}`);
      }
      expect(findings.list).toEqual([]);
      // Auth counted none of them: the account has all its ten tries left, then is held.
      for (let i = 1; i <= 10; i++)
        expect((await call('POST', '/api/signin', {}, wrong, randomAddress())).status).toBe(401);
      expect((await call('POST', '/api/signin', {}, wrong, randomAddress())).status).toBe(429);
    }),
  );

  it(
    'never reaches an /internal route through the gateway, however it is written, even with the service token',
    counted(async () => {
      const findings = new Findings();
      const before = await settledDigest(databases);
      const serviceToken = { 'X-Service-Token': store.services.auth.config.SERVICE_TOKEN };
      const internal = specs.filter((s) => s.access === 'internal');
      for (const spec of internal) {
        const p = concrete(spec.path);
        for (const target of [
          p,
          ...spellings(p),
          `/api/..${p}`,
          `/api/x/..%2f..${p}`,
          `/external/../..${p}`,
        ]) {
          const res = await call(spec.method, target, serviceToken, spec.method === 'get' ? undefined : {});
          tally.pathCases++;
          findings.check(
            res.status === 400 || meets('unreachable', res, spec.method),
            `${spec.method.toUpperCase()} ${target}: ${res.status} ${res.text.slice(0, 100)}`,
          );
        }
      }
      expect(internal.length).toBeGreaterThan(5);
      expect(findings.list).toEqual([]);
      expect(await digest(databases)).toBe(before);
    }),
  );
});

describe('the service token', () => {
  it(
    'guards every /internal route on the service that mounts it: no token, a wrong one or a near miss is refused with 403',
    counted(async () => {
      const findings = new Findings();
      const before = await settledDigest(databases);
      const { auth, money, catalog, orders } = store.services;
      const services = [
        auth.service.url,
        money.wallet.service.url,
        money.service.url,
        catalog.service.url,
        orders.url(),
      ];
      const token = auth.config.SERVICE_TOKEN;
      const wrong: Record<string, string>[] = [
        {},
        { 'X-Service-Token': '' },
        { 'X-Service-Token': `${token.slice(0, -1)}x` },
        { 'X-Service-Token': `${token}x` },
      ];
      const internal = specs.filter((s) => s.access === 'internal');
      for (const spec of internal) {
        const target = concrete(spec.path);
        let guarded = 0;
        for (const url of services) {
          for (const headers of wrong) {
            const body = spec.method === 'get' ? undefined : {};
            const text = body === undefined ? undefined : bodyText(body);
            const res = await raw(
              url,
              spec.method.toUpperCase(),
              target,
              {
                ...headers,
                ...(text !== undefined && { 'content-type': 'application/json' }),
              },
              text,
            );
            tally.pathCases++;
            // The service that mounts the route refuses it; the others do not know it.
            if (res.status === 403) guarded++;
            findings.check(
              res.status === 403 || res.status === 404,
              `${spec.method.toUpperCase()} ${url}${target} with ${JSON.stringify(headers)}: ${res.status} ${res.text.slice(0, 100)}`,
            );
          }
        }
        findings.check(
          guarded >= wrong.length,
          `${spec.method.toUpperCase()} ${spec.path} was refused by no service`,
        );
      }
      expect(internal.length).toBeGreaterThan(5);
      expect(findings.list).toEqual([]);
      expect(await digest(databases)).toBe(before);
    }),
  );
});

// ---------------------------------------------------------------- uploads

describe('uploads', () => {
  const png = fs.readFileSync(IMAGE);
  const badFiles: [string, Buffer, string][] = [
    ['a text file calling itself a PNG', Buffer.from('just text, not a picture\n'.repeat(20)), 'image/png'],
    [
      'an HTML page named .png',
      Buffer.from('<html><script>alert(document.cookie)</script></html>'),
      'image/png',
    ],
    [
      'a PDF and HTML polyglot',
      Buffer.from('%PDF-1.4\n<html><body><script>alert(1)</script></body></html>\n%%EOF'),
      'image/png',
    ],
    [
      'a GIF and JavaScript polyglot',
      Buffer.from('GIF89a/*\x00\x00*/=1;alert(document.domain)//'),
      'image/gif',
    ],
    [
      'an SVG with a script',
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
      'image/svg+xml',
    ],
    ['0 bytes', Buffer.alloc(0), 'image/png'],
    [
      '3 MB + 1 byte of PNG',
      Buffer.concat([png, Buffer.alloc(3 * 1024 * 1024 + 1 - png.length)]),
      'image/png',
    ],
  ];

  async function stored() {
    const s = store.services;
    return {
      receipts: (await s.money.objects.list('')).sort(),
      images: (await s.catalog.objects.list('')).sort(),
      documents: await digest({ payments: s.money.db, catalog: s.catalog.db }),
    };
  }

  it(
    'refuses each bad receipt and catalogue image with 4xx and stores nothing',
    counted(async () => {
      const findings = new Findings();
      const before = await stored();
      for (const [what, file, type] of badFiles) {
        const receipt = await topUp(customer.email, file).catch((err: Error) => ({
          status: 0,
          text: err.message,
        }));
        findings.check(
          receipt.status >= 400 && receipt.status < 500,
          `top-up with ${what}: ${receipt.status}`,
        );
        const product = await multipart('/api/create/product', bearer(mint(admin)))
          .field('productName', uniqueName('Fuzz card '))
          .field('price', '5')
          .field('params', 'Account e-mail')
          .field('category_name', 'Steam')
          .attach('image', file, { filename: 'picture.png', contentType: type });
        findings.check(
          product.status >= 400 && product.status < 500,
          `product image ${what}: ${product.status}`,
        );
      }
      expect(findings.list).toEqual([]);
      expect(await stored()).toEqual(before);
    }),
  );

  it(
    'refuses a form of a thousand parts with 4xx and stores nothing',
    counted(async () => {
      const before = await stored();
      const doc = await userDoc(customer.email);
      let form = multipart('/api/payments', bearer(mint(doc)))
        .field('product_name', 'Binance')
        .field('amount', '5');
      for (let i = 0; i < 1000; i++) form = form.field(`f${i}`, 'x');
      const res = await form.attach('image', freshReceipt(), 'receipt.png');
      expect(res.status).toBe(400);
      expect(await stored()).toEqual(before);
    }),
  );

  it(
    'takes 5 waiting top-ups from a customer and refuses the sixth',
    counted(async () => {
      const buyer = await newCustomer();
      for (let i = 0; i < 5; i++) expect((await topUp(buyer.email)).status).toBe(201);
      const before = await stored();
      const sixth = await topUp(buyer.email);
      expect(sixth.status).toBeGreaterThanOrEqual(400);
      expect(sixth.status).toBeLessThan(500);
      expect(sixth.body.error).toBe('You have too many top-ups waiting for review.');
      expect(await stored()).toEqual(before);
    }),
  );
});

// ---------------------------------------------------------------- limits

describe('sign-in limits', () => {
  const signIn = (email: string, password: string, address: string) =>
    call('POST', '/api/signin', {}, { email, password }, address);
  const nobody = () => `${uniqueName('nobody')}@example.com`;

  it(
    'holds an account after 10 failures from 10 addresses, even with the right password',
    counted(async () => {
      const victim = await store.services.auth.newCustomer();
      for (let i = 0; i < 10; i++)
        expect((await signIn(victim.email, 'wrong-password-1', randomAddress())).status).toBe(401);
      expect((await signIn(victim.email, 'wrong-password-1', randomAddress())).status).toBe(429);
      expect((await signIn(victim.email, PASSWORD, randomAddress())).status).toBe(429);
    }),
  );

  it(
    'holds an address after SIGNIN_ADDRESS_FAILURES failures across accounts, counting failures only',
    counted(async () => {
      const address = randomAddress();
      const regular = await store.services.auth.newCustomer();
      for (let i = 0; i < SIGNIN_ADDRESS_FAILURES - 1; i++)
        expect((await signIn(nobody(), 'wrong-password-1', address)).status).toBe(401);
      // Successes in between are not held against the address.
      for (let i = 0; i < 10; i++) expect((await signIn(regular.email, PASSWORD, address)).status).toBe(200);
      expect((await signIn(nobody(), 'wrong-password-1', address)).status).toBe(401);
      expect((await signIn(nobody(), 'wrong-password-1', address)).status).toBe(429);
      expect((await signIn(regular.email, PASSWORD, address)).status).toBe(429);
      // The address is held, not the account.
      expect((await signIn(regular.email, PASSWORD, randomAddress())).status).toBe(200);
    }),
  );

  it(
    "lets a customer in on a shared address after other people's 12 failures there",
    counted(async () => {
      const shared = randomAddress();
      const customerThere = await store.services.auth.newCustomer();
      for (let i = 0; i < 12; i++)
        expect((await signIn(nobody(), 'wrong-password-1', shared)).status).toBe(401);
      expect((await signIn(customerThere.email, PASSWORD, shared)).status).toBe(200);
    }),
  );

  it(
    'trusts X-Forwarded-For only from the loopback proxy hop: the header picks the address counted',
    counted(async () => {
      // Two addresses given by the trusted hop are two counters: one held, the other not.
      const held = randomAddress();
      for (let i = 0; i < SIGNIN_ADDRESS_FAILURES; i++) await signIn(nobody(), 'wrong-password-1', held);
      expect((await signIn(nobody(), 'wrong-password-1', held)).status).toBe(429);
      expect((await signIn(nobody(), 'wrong-password-1', randomAddress())).status).toBe(401);
      // A client's own address comes first in the header; the hop's (rightmost) is the one counted.
      expect((await signIn(nobody(), 'wrong-password-1', `${randomAddress()}, ${held}`)).status).toBe(429);
    }),
  );
});

// ---------------------------------------------------------------- sessions

describe('sessions that end', () => {
  /** A call on every service and on the queue board that only a signed-in admin passes. */
  const probes = [
    ['auth', 'GET', '/api/users/count'],
    ['wallet', 'GET', '/api/balance'],
    ['payments', 'GET', '/api/payments/stats'],
    ['catalog', 'GET', '/api/custom-products'],
    ['orders', 'GET', '/api/orders/stats'],
    ['queue board', 'GET', '/admin/queues/api/queues'],
  ] as const;
  const probe = (token: string) =>
    Promise.all(
      probes.map(([, method, target]) =>
        call(method, target, { ...bearer(token), accept: 'application/json' }),
      ),
    );

  async function endsEverywhere(end: (who: { doc: UserDoc; token: string }) => Promise<void>) {
    const who = await newAdmin();
    const open = (r: RawAnswer) => (r.status < 400 ? 'open' : String(r.status));
    const before = await probe(who.token);
    expect(before.map((r, i) => `${probes[i]?.[0]} ${open(r)}`)).toEqual(
      probes.map(([name]) => `${name} open`),
    );
    await end(who);
    const ended = Date.now();
    let answers = await probe(who.token);
    while (answers.some((r) => r.status !== 401) && Date.now() - ended < 1000) {
      await new Promise((r) => setTimeout(r, 50));
      answers = await probe(who.token);
    }
    const tookMs = Date.now() - ended;
    expect(answers.map((r, i) => `${probes[i]?.[0]} ${r.status}`)).toEqual(
      probes.map(([name]) => `${name} 401`),
    );
    expect(tookMs).toBeLessThanOrEqual(1000);
  }

  it(
    'ends every session at logout, on every service and the queue board, within 1 s',
    counted(() =>
      endsEverywhere(async (who) => {
        expect((await call('POST', '/api/logout', bearer(who.token))).status).toBe(200);
      }),
    ),
  );

  it(
    'ends every session at a password reset, everywhere, within 1 s',
    counted(() => endsEverywhere((who) => resetPassword(who.doc.email))),
  );

  it(
    "ends every session at the account's deletion, everywhere, within 1 s",
    counted(() =>
      endsEverywhere(async (who) => {
        const res = await call('DELETE', `/api/users/${String(who.doc._id)}`, bearer(mint(admin)));
        expect(res.status).toBe(200);
      }),
    ),
  );
});

// ---------------------------------------------------------------- the matrix, last: the customer's
// own account deletion, allowed, ends the customer the other tests use.

describe('the authorisation matrix', () => {
  let tokens: Record<CallerName, () => Record<string, string>>;

  beforeAll(async () => {
    const gone = await newAdmin();
    expect((await call('DELETE', `/api/users/${String(gone.doc._id)}`, bearer(mint(admin)))).status).toBe(
      200,
    );
    const [leaving, resetting] = await Promise.all([
      store.services.auth.newCustomer(),
      store.services.auth.newCustomer(),
    ]);
    const loggedOut = await store.signIn(leaving.email);
    expect((await call('POST', '/api/logout', bearer(loggedOut))).status).toBe(200);
    const beforeReset = await store.signIn(resetting.email);
    await resetPassword(resetting.email);

    const adminClaims = { ...claims(admin), authorized: true, signedAt: Date.now() };
    const now = Math.floor(Date.now() / 1000);
    const expired = jwt.sign({ ...adminClaims, iat: now - 7200, exp: now - 3600 }, secret(), {
      algorithm: 'HS256',
    });
    const unsigned = `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url({ ...adminClaims, iat: now, exp: now + 3600 })}.`;
    const customerToken = mint(customer.doc);
    const [head, , signature] = customerToken.split('.');
    const tampered = `${head}.${base64url({ ...claimsOf(customerToken), role: 'admin' })}.${signature}`;
    tokens = {
      visitor: () => ({}),
      customer: () => bearer(mint(customer.doc)),
      'another customer': () => bearer(mint(other.doc)),
      admin: () => bearer(mint(admin)),
      'deleted admin': () => bearer(gone.token),
      'after logout': () => bearer(loggedOut),
      'after reset': () => bearer(beforeReset),
      expired: () => bearer(expired),
      'alg none': () => bearer(unsigned),
      'wrong key': () => bearer(signSession(claims(admin), `not-${secret()}`, 3600)),
      'tampered claims': () => bearer(tampered),
    };
  });

  const callers = () => Object.keys(tokens) as CallerName[];
  const matrixCall = (spec: RouteSpec, caller: CallerName) => {
    const target = concrete(spec.path, caller, spec.method);
    const headers = {
      ...tokens[caller](),
      // Even the real service token opens no /internal route through the gateway.
      ...(spec.access === 'internal' && { 'X-Service-Token': store.services.auth.config.SERVICE_TOKEN }),
    };
    const body =
      spec.method === 'get'
        ? undefined
        : bodyNamesUser(spec)
          ? { userId: customer.id, user_id: customer.id }
          : {};
    return call(spec.method, target, headers, body);
  };

  it(
    'refuses every caller a route is not for, and the refusals change no document',
    counted(async () => {
      const findings = new Findings();
      const before = await settledDigest(databases);
      let refusals = 0;
      for (const spec of specs) {
        for (const caller of callers()) {
          const want = expected(spec.access, caller, spec);
          if (want === 'allowed') continue;
          const res = await matrixCall(spec, caller);
          tally.cells++;
          refusals++;
          findings.check(
            meets(want, res, spec.method),
            `${spec.method.toUpperCase()} ${spec.path} as ${caller}: expected ${want}, got ${res.status} ${res.text.slice(0, 120)}`,
          );
        }
      }
      expect(refusals).toBeGreaterThan(specs.length * 5);
      expect(findings.list).toEqual([]);
      expect(await digest(databases)).toBe(before);
    }),
  );

  it(
    'lets every caller a route is for past its guard, and never answers 5xx',
    counted(async () => {
      const findings = new Findings();
      // Deletions last: the customer deleting their own account ends the customer.
      const ordered = [...specs].sort(
        (a, b) => Number(a.method === 'delete') - Number(b.method === 'delete'),
      );
      let allowed = 0;
      for (const spec of ordered) {
        for (const caller of callers()) {
          if (expected(spec.access, caller, spec) !== 'allowed') continue;
          const res = await matrixCall(spec, caller);
          tally.cells++;
          allowed++;
          findings.check(
            meets('allowed', res, spec.method),
            `${spec.method.toUpperCase()} ${spec.path} as ${caller}: expected to pass its guard, got ${res.status} ${res.text.slice(0, 120)}`,
          );
        }
      }
      expect(allowed).toBeGreaterThan(specs.length);
      expect(findings.list).toEqual([]);
    }),
  );
});
