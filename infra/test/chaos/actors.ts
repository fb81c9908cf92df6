import { createEvent } from '@raseed/kit';
import { eventually, republishEvents } from '@raseed/kit/testing';
import { randomUUID } from 'node:crypto';
import { freshReceipt } from '../../../services/payments/test/support';
import type { TestUser } from '../../../services/wallet/test/support';
import type { Answer, CallOptions, Client } from './client';
import type { Random } from './random';
import type { Stack } from './stack';

export interface OrderableProduct {
  /** As orders reads it: 'c-…' for a created product, 'p-…' for the supplier's. */
  id: string;
  label: string;
  params: string[];
  quantity: number;
}

/** What the actors share: the store, what they have made that admins decide, and the run's figures. */
export interface World {
  stack: Stack;
  client: Client;
  products: OrderableProduct[];
  /** Top-ups answered 201, for the admins to decide. */
  waitingPayments: string[];
  /** Orders of created products answered 201, for the admins to decide. */
  createdOrders: string[];
  deleted: Set<string>;
  /** No operation starts after this. */
  runEnds: number;
  /** A retry after no answer or a 5xx stops after this. */
  giveUpAt: number;
  started: number;
  /** 'operation status' → how many answered so. */
  outcomes: Map<string, number>;
}

const tally = (world: World, op: string, answer: Answer) => {
  const name = `${op} ${answer.status || 'no answer'}`;
  world.outcomes.set(name, (world.outcomes.get(name) ?? 0) + 1);
};

const url = (world: World, service: 'wallet' | 'orders' | 'payments', path: string) =>
  `${world.stack.services[service].url}${path}`;

/** A call made until answered (same key), counted under its operation. */
async function call(
  world: World,
  actor: string,
  op: string,
  target: string,
  options: CallOptions,
): Promise<Answer> {
  const answer = await world.client.retried(actor, op, target, options, () => Date.now() > world.giveUpAt);
  tally(world, op, answer);
  return answer;
}

/** Sometimes the same request twice at once, as a double click sends it: one key, one effect. */
async function maybeTwice(random: Random, send: () => Promise<Answer>): Promise<Answer> {
  if (!random.chance(0.15)) return send();
  const [first] = await Promise.all([send(), send()]);
  return first;
}

const cents = (random: Random, min: number, max: number) => random.int(min * 100, max * 100) / 100;

async function topUp(world: World, random: Random, user: TestUser, actor: string): Promise<void> {
  const receipt = freshReceipt();
  const form = new FormData();
  form.append('product_name', random.pick(['Binance', 'Whish-Money']));
  form.append('amount', String(cents(random, 1, 40)));
  form.append('image', new Blob([new Uint8Array(receipt)], { type: 'image/png' }), 'receipt.png');
  const key = randomUUID();
  const answer = await maybeTwice(random, () =>
    call(world, actor, 'top-up', url(world, 'payments', '/api/payments'), {
      token: user.token,
      body: form,
      key,
    }),
  );
  const payment = answer.body.payment as { id?: string } | undefined;
  if (answer.status === 201 && payment?.id && !world.waitingPayments.includes(payment.id))
    world.waitingPayments.push(payment.id);
}

async function order(world: World, random: Random, user: TestUser, actor: string): Promise<void> {
  const product = random.pick(world.products);
  const body = {
    product_id: product.id,
    quantity: product.quantity,
    params: product.params.map((label) => `${label}:player-${random.int(1, 999)}`).join(','),
  };
  const key = randomUUID();
  const op = `order ${product.label}`;
  const answer = await maybeTwice(random, () =>
    call(world, actor, op, url(world, 'orders', '/api/orders'), { token: user.token, body, key }),
  );
  const orderId = answer.body.orderId as string | undefined;
  if (
    answer.status === 201 &&
    orderId &&
    product.id.startsWith('c-') &&
    !world.createdOrders.includes(orderId)
  )
    world.createdOrders.push(orderId);
}

async function look(world: World, random: Random, user: TestUser, actor: string): Promise<void> {
  const [op, target, options] = random.pick([
    ['balance', url(world, 'wallet', '/api/balance'), { token: user.token }],
    ['my orders', url(world, 'orders', '/api/orders/myorders'), { token: user.token, body: {} }],
    ['my payments', url(world, 'payments', '/api/payments/mypayments'), { token: user.token, body: {} }],
  ] as const);
  await call(world, actor, op, target, options);
}

/** A customer: tops up, orders, and looks at their balance and lists. */
export async function customer(world: World, random: Random, user: TestUser, index: number): Promise<void> {
  const actor = `customer ${index}`;
  while (Date.now() < world.runEnds) {
    const op = random.weighted([
      [topUp, 2],
      [order, 5],
      [look, 1],
    ] as const);
    await op(world, random, user, actor);
    await new Promise((r) => setTimeout(r, random.int(200, 1500)));
  }
}

/** One admin, or both at once (as two people on the same list do), decide the same thing. */
async function byOneOrBoth(
  world: World,
  random: Random,
  admins: TestUser[],
  decide: (admin: TestUser, actor: string, action: 'confirmed' | 'rejected') => Promise<Answer>,
): Promise<void> {
  const deciding = random.chance(0.5) ? admins : [random.pick(admins)];
  const actions = deciding.map(() => (random.chance(0.7) ? ('confirmed' as const) : ('rejected' as const)));
  await Promise.all(deciding.map((admin, i) => decide(admin, `admin ${admins.indexOf(admin)}`, actions[i]!)));
}

async function decidePayment(world: World, random: Random, admins: TestUser[]): Promise<void> {
  const id = world.waitingPayments.shift();
  if (!id) return;
  await byOneOrBoth(world, random, admins, (admin, actor, action) =>
    call(world, actor, `payment ${action}`, url(world, 'payments', `/api/payments/${id}/update-status`), {
      method: 'PUT',
      token: admin.token,
      body: { action },
    }),
  );
}

async function decideOrder(world: World, random: Random, admins: TestUser[]): Promise<void> {
  const orderId = world.createdOrders.shift();
  if (!orderId) return;
  await byOneOrBoth(world, random, admins, (admin, actor, action) =>
    call(world, actor, `order ${action}`, url(world, 'orders', '/api/orders/action'), {
      token: admin.token,
      body: {
        orderId,
        action,
        replay: action === 'confirmed' ? `CODE-${random.int(1000, 9999)}` : undefined,
      },
    }),
  );
}

async function decideStuck(world: World, random: Random, admins: TestUser[]): Promise<void> {
  const admin = random.pick(admins);
  const actor = `admin ${admins.indexOf(admin)}`;
  const list = await call(world, actor, 'stuck list', url(world, 'orders', '/api/orders/stuck'), {
    token: admin.token,
  });
  const stuck = (list.body.orders as { id: string }[] | undefined) ?? [];
  if (!stuck.length) return;
  const { id } = random.pick(stuck);
  const action = random.chance(0.5) ? 'confirmed' : 'rejected';
  await call(world, actor, `stuck ${action}`, url(world, 'orders', `/api/orders/stuck/${id}`), {
    token: admin.token,
    body: { action, replay: action === 'confirmed' ? 'Delivered by hand' : undefined },
    key: randomUUID(),
  });
}

async function resolveDispute(world: World, random: Random, admins: TestUser[]): Promise<void> {
  const admin = random.pick(admins);
  const actor = `admin ${admins.indexOf(admin)}`;
  const list = await call(world, actor, 'disputed list', url(world, 'orders', '/api/orders/disputed'), {
    token: admin.token,
  });
  const disputed = (list.body.orders as { id: string; dispute: { actions: string[] } }[] | undefined) ?? [];
  if (!disputed.length) return;
  const { id, dispute } = random.pick(disputed);
  const action = random.pick(dispute.actions);
  await call(world, actor, `dispute ${action}`, url(world, 'orders', `/api/orders/disputed/${id}/resolve`), {
    token: admin.token,
    body: { action },
    key: randomUUID(),
  });
}

async function moveMoney(world: World, random: Random, admins: TestUser[]): Promise<void> {
  const admin = random.pick(admins);
  const actor = `admin ${admins.indexOf(admin)}`;
  const user = random.pick(world.stack.customers);
  const [op, path, body] = random.weighted([
    [['credit', '/api/payments', { type: 'IN', amount: cents(random, 5, 30) }], 2],
    [['withdrawal', '/api/payments', { type: 'OUT', amount: cents(random, 1, 15) }], 2],
    [['credit as debt', '/api/debtpayment', { type: 'IN', amount: cents(random, 5, 20) }], 1],
  ] as const);
  const key = randomUUID();
  await maybeTwice(random, () =>
    call(world, actor, op, url(world, 'payments', path), {
      token: admin.token,
      body: { user_id: user.id, ...body },
      key,
    }),
  );
}

async function changeDebt(world: World, random: Random, admins: TestUser[]): Promise<void> {
  const admin = random.pick(admins);
  const actor = `admin ${admins.indexOf(admin)}`;
  const user = random.pick(world.stack.customers);
  const shown = await call(world, actor, 'debt', url(world, 'wallet', `/api/debt?user_id=${user.id}`), {
    token: admin.token,
  });
  if (shown.status !== 200) return;
  const debt = shown.body.debt as number;
  await call(world, actor, 'debt change', url(world, 'wallet', '/api/editdebt'), {
    token: admin.token,
    body: { user_id: user.id, newdebt: Math.floor(random.next() * debt * 100) / 100, expected_debt: debt },
    key: randomUUID(),
  });
}

/**
 * An account deleted as auth announces it; once a run, not before a third of it. Auth's relay
 * keeps an event until Kafka takes it, so while Kafka is restarted the same event is sent again.
 */
async function deleteAccount(world: World, random: Random): Promise<void> {
  const third = world.started + (world.runEnds - world.started) / 3;
  if (world.deleted.size || Date.now() < third) return;
  const user = random.pick(world.stack.customers);
  world.deleted.add(user.id);
  const event = createEvent('auth', 'user.deleted', user.id, { userId: user.id });
  await eventually(
    () =>
      republishEvents('user.deleted', event).then(
        () => true,
        () => undefined,
      ),
    { timeoutMs: 120_000, what: 'the account deletion on Kafka' },
  );
  world.outcomes.set('account deleted', 1);
}

/** The two admins' desk: decisions, money moved by hand, stuck and disputed orders. */
export async function admins(world: World, random: Random): Promise<void> {
  const { admins } = world.stack;
  while (Date.now() < world.runEnds) {
    const op = random.weighted([
      [decidePayment, 6],
      [decideOrder, 5],
      [moveMoney, 3],
      [changeDebt, 1],
      [decideStuck, 1],
      [resolveDispute, 1],
      [deleteAccount, 0.5],
    ] as const);
    await op(world, random, admins);
    await new Promise((r) => setTimeout(r, random.int(200, 1000)));
  }
}
