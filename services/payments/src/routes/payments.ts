import {
  idempotencyKey,
  assertSelfOrAdmin,
  badRequest,
  checkImage,
  conflict,
  currentUser,
  dateFilter,
  forbidden,
  HttpError,
  imageForm,
  keyedId,
  keyReused,
  notFound,
  pageAnswer,
  parseInput,
  requestFingerprint,
  toDollars,
  z,
  type ApiRoutes,
  type ObjectStore,
  type ServiceClient,
  uploadedFile,
} from '@raseed/kit';
import { randomUUID } from 'node:crypto';
import type { Request } from 'express';
import { Types } from 'mongoose';
import type { PaymentsConfig } from '../config';
import type { Payment, PaymentStore } from '../data/payments';
import type { SalesBook } from '../data/sales';
import type { UserDirectory } from '../data/users';
import {
  amountToSend,
  decisionSchema,
  historySchema,
  listSchema,
  methodDestinations,
  myPaymentsSchema,
  paymentSchemas,
  receiptDigest,
  texts,
} from '../domain/rules';

export interface PaymentsDeps {
  config: PaymentsConfig;
  payments: PaymentStore;
  sales: SalesBook;
  users: UserDirectory;
  receipts: ObjectStore;
  wallet: ServiceClient;
}

/** A payment as the spec's screens read it (§3), amounts in dollars. */
export const paymentView = (p: Payment) => ({
  id: p._id.toString(),
  user_id: p.userId,
  username: p.username,
  product_name: p.productName,
  amount: toDollars(p.amount),
  amount_to_send: p.amountToSend === null ? null : toDollars(p.amountToSend),
  type: p.type,
  status: p.status,
  image_path: p.receipt ? `/api/payments/${p._id.toString()}/receipt` : null,
  created_at: p.createdAt,
});

const paymentAnswer = z.object({ id: z.string(), amount: z.number(), status: z.string() }).passthrough();
const listAnswer = z.object({
  success: z.boolean(),
  payments: z.array(paymentAnswer),
  totalPages: z.number(),
});

export function paymentRoutes(api: ApiRoutes, deps: PaymentsDeps): void {
  const { payments, receipts } = deps;
  const schemas = paymentSchemas(deps.config);

  api.route(
    {
      method: 'get',
      path: '/api/payments/methods',
      summary: 'The payment methods of Add Credit and where to send the transfer',
      access: 'public',
    },
    (_req, res) => {
      res.json({ methods: methodDestinations(deps.config) });
    },
  );

  api.route(
    {
      method: 'post',
      path: '/api/payments',
      summary:
        "A customer's top-up with its receipt (multipart), or an admin's credit (type IN) or withdrawal (type OUT) as JSON",
      access: 'user',
      form: { fields: schemas.topUp, file: 'image' },
      body: schemas.adminPayment,
      status: 201,
      answer: z.object({ paymentStatus: z.boolean(), message: z.string(), payment: paymentAnswer }),
    },
    imageForm('image'),
    async (req, res) => {
      if (currentUser(req).role === 'admin' && !uploadedFile(req)) {
        const payment = await adminPayment(deps, req, false);
        res
          .status(201)
          .json({ paymentStatus: true, message: adminMessage(payment), payment: paymentView(payment) });
        return;
      }
      const payment = await submitTopUp(deps, req, schemas.topUp);
      res.status(201).json({ paymentStatus: true, message: texts.submitted, payment: paymentView(payment) });
    },
  );

  api.route(
    {
      method: 'post',
      path: '/api/debtpayment',
      summary: "An admin's credit given as debt: the balance and the debt rise by the amount",
      access: 'admin',
      body: schemas.adminPayment,
      status: 201,
      answer: z.object({ paymentStatus: z.boolean(), message: z.string() }),
    },
    async (req, res) => {
      const payment = await adminPayment(deps, req, true);
      res
        .status(201)
        .json({ paymentStatus: true, message: adminMessage(payment), payment: paymentView(payment) });
    },
  );

  api.route(
    {
      method: 'get',
      path: '/api/payments/{id}/receipt',
      summary: "A top-up's receipt image, for its owner and admins",
      access: 'user',
    },
    async (req, res) => {
      const payment = await payments.findById(String(req.params.id));
      if (!payment) throw notFound(texts.paymentNotFound);
      assertSelfOrAdmin(req, payment.userId);
      const receipt = payment.receipt ? await receipts.get(payment.receipt) : null;
      if (!receipt) throw notFound('This payment has no receipt');
      res.set({
        'content-type': receipt.contentType,
        'content-length': String(receipt.size),
        'cache-control': 'private, max-age=300',
      });
      receipt.body.pipe(res);
    },
  );

  api.route(
    {
      method: 'post',
      path: '/api/payments/mypayments',
      summary: "One's own payments, newest first, 10 a page, within the date filter",
      access: 'user',
      body: myPaymentsSchema,
      answer: listAnswer,
    },
    async (req, res) => {
      const query = parseInput(myPaymentsSchema, req.body, { success: false });
      const userId = query.userId ?? currentUser(req).id;
      assertSelfOrAdmin(req, userId);
      const { items, total } = await payments.page(
        { userId, ...dateFilter('createdAt', query) },
        query.page,
        query.limit,
      );
      res.json({
        success: true,
        payments: items.map(paymentView),
        ...(items.length === 0 && { message: 'No payments found.' }),
        ...pageAnswer(query, total),
      });
    },
  );

  api.route(
    {
      method: 'get',
      path: '/api/waiting-payments',
      summary: 'Top-ups waiting for an admin, newest first, 10 a page',
      access: 'admin',
      query: listSchema,
      answer: listAnswer,
    },
    async (req, res) => {
      const query = parseInput(listSchema, req.query, { success: false });
      const { items, total } = await payments.page(
        { status: 'waiting', ...dateFilter('createdAt', query) },
        query.page,
        query.limit,
      );
      res.json({
        success: true,
        payments: items.map(paymentView),
        ...(items.length === 0 && { message: 'No Active payments found.' }),
        ...pageAnswer(query, total),
      });
    },
  );

  api.route(
    {
      method: 'get',
      path: '/api/payments',
      summary: 'Payments history for admins: newest first, 10 a page, by date and status',
      access: 'admin',
      query: historySchema,
      answer: listAnswer,
    },
    async (req, res) => {
      const query = parseInput(historySchema, req.query, { success: false });
      const filter = { ...(query.status && { status: query.status }), ...dateFilter('createdAt', query) };
      const { items, total } = await payments.page(filter, query.page, query.limit);
      res.json({ success: true, payments: items.map(paymentView), ...pageAnswer(query, total) });
    },
  );

  api.route(
    {
      method: 'put',
      path: '/api/payments/{id}/update-status',
      summary: 'Confirms or rejects a waiting top-up, once',
      access: 'admin',
      body: decisionSchema,
      answer: z.object({ success: z.boolean(), color: z.enum(['success', 'warning']), message: z.string() }),
    },
    async (req, res) => {
      const failed = { success: false };
      const { action } = parseInput(decisionSchema, req.body, failed);
      const payment = await payments.findById(String(req.params.id));
      if (!payment) throw notFound(texts.paymentNotFound, failed);
      if (payment.status !== 'waiting' && payment.createdBy !== 'customer') {
        throw conflict(`This payment was made ${payment.status} by an admin and cannot be changed.`, failed);
      }
      const result = await payments.decide(payment, action, currentUser(req).id);
      if (!result.decided) {
        throw conflict(`This payment has already been ${result.earlier}.`, failed);
      }
      res.json({
        success: true,
        color: action === 'confirmed' ? 'success' : 'warning',
        message: action === 'confirmed' ? 'Payment has been confirmed.' : 'Payment has been rejected.',
      });
    },
  );

  api.route(
    {
      method: 'get',
      path: '/api/userpayment',
      summary: "Each user's sales total (confirmed IN payments), in dollars",
      access: 'admin',
      answer: z.array(z.object({ user_id: z.string(), total_amount: z.number() })),
    },
    async (_req, res) => {
      const users = await deps.sales.users();
      res.json([...users].map(([user_id, total]) => ({ user_id, total_amount: toDollars(total) })));
    },
  );

  api.route(
    {
      method: 'get',
      path: '/api/payments/stats',
      summary: "The admin home's payment figures: counts, and total, weekly and monthly sales",
      access: 'admin',
      answer: z.object({
        totalPayments: z.number(),
        waitingPayments: z.number(),
        totalSales: z.number(),
        weeklySales: z.number(),
        monthlySales: z.number(),
      }),
    },
    async (_req, res) => {
      const [sales, totalPayments, waitingPayments] = await Promise.all([
        deps.sales.totals(),
        payments.count(),
        payments.count({ status: 'waiting' }),
      ]);
      res.json({
        totalPayments,
        waitingPayments,
        totalSales: toDollars(sales.total),
        weeklySales: toDollars(sales.weekly),
        monthlySales: toDollars(sales.monthly),
      });
    },
  );
}

/**
 * A customer's top-up: always their own and always waiting; the receipt is checked by content
 * first. With an Idempotency-Key a repeat answers the first payment; a receipt is taken by one
 * payment at a time, until that one is rejected. The payment's insert decides both.
 */
async function submitTopUp(
  deps: PaymentsDeps,
  req: Request,
  schema: ReturnType<typeof paymentSchemas>['topUp'],
): Promise<Payment> {
  const failed = { paymentStatus: false };
  const user = currentUser(req);
  // Naming someone else is refused before anything else is looked at (rule 4).
  const named = (req.body as { user_id?: unknown } | undefined)?.user_id;
  if (named !== undefined && named !== user.id) throw forbidden(undefined, failed);
  // A deleted account adds no credit, though its session may outlive it for a moment.
  if ((await deps.users.lookup(user.id))?.deletedAt) throw notFound(texts.accountDeleted, failed);
  const input = parseInput(schema, req.body, failed);
  const file = uploadedFile(req);
  if (!file) throw badRequest(texts.attachReceipt, failed);
  const image = await checkImage(file).catch((err: HttpError) => {
    throw new HttpError(err.status, err.message, failed);
  });
  const key = idempotencyKey(req, failed);
  const fingerprint = requestFingerprint({ method: input.product_name, amount: input.amount });
  const sameRequest = (first: Payment) => {
    if (first.fingerprint !== fingerprint) throw keyReused(failed);
    return first;
  };
  const _id = new Types.ObjectId(key ? keyedId(user.id, key) : undefined);
  const repeatOfKey = async () => {
    const first = key ? await deps.payments.findById(_id.toString()) : null;
    return first && sameRequest(first);
  };
  // A repeat of the key is answered before anything is stored.
  const repeat = await repeatOfKey();
  if (repeat) return repeat;
  const digest = receiptDigest(image.buffer);
  const round = await deps.payments.receiptRound(user.id, digest);
  if (round === null) {
    // The payment holding the receipt may be this key's own, inserted a moment ago.
    const justMade = await repeatOfKey();
    if (justMade) return justMade;
    throw badRequest(texts.receiptSubmitted, failed);
  }
  // Each attempt stores its own object: one that loses the insert removes only its own.
  const receipt = `receipts/${user.id}/${_id.toString()}-${randomUUID()}.${image.extension}`;
  await deps.receipts.put(receipt, image.buffer, image.contentType);
  const submission = await deps.payments
    .submitInSlot({
      _id,
      userId: user.id,
      username: user.username,
      productName: input.product_name,
      amount: input.amount,
      amountToSend: amountToSend(input.product_name, input.amount),
      type: 'IN',
      status: 'waiting',
      asDebt: false,
      receipt,
      receiptDigest: digest,
      receiptClaim: `${user.id}:${digest}:${round}`,
      fingerprint,
      createdBy: 'customer',
    })
    .catch(async (err: unknown) => {
      await deps.receipts.remove(receipt).catch(() => undefined);
      throw err;
    });
  if (submission !== 'full' && submission?.first) return submission.payment;
  await deps.receipts.remove(receipt).catch(() => undefined);
  if (submission === 'full') {
    // This key's own top-up may hold the last slot, inserted a moment ago.
    const justMade = await repeatOfKey();
    if (justMade) return justMade;
    throw new HttpError(429, texts.tooManyWaiting, failed);
  }
  if (!submission) throw badRequest(texts.receiptSubmitted, failed);
  return sameRequest(submission.payment);
}

/**
 * An admin's credit or withdrawal, confirmed as it is made. A withdrawal is debited by the
 * wallet first, under the payment's id, so a balance too small refuses it with nothing
 * recorded; the payment is recorded right after (or, if this service stops in between,
 * from the wallet's wallet.debited event). A retry with the same Idempotency-Key (scoped to
 * the admin) names the same payment id, so nothing moves twice; the key with another request
 * (user, amount, type, or as debt or not) is refused and moves nothing.
 */
async function adminPayment(deps: PaymentsDeps, req: Request, asDebt: boolean): Promise<Payment> {
  const failed = { paymentStatus: false };
  const admin = currentUser(req);
  const input = parseInput(paymentSchemas(deps.config).adminPayment, req.body, failed);
  if (asDebt && input.type !== 'IN') throw badRequest('A credit given as debt is always type IN.', failed);
  const user = await deps.users.lookup(input.user_id);
  if (!user) throw notFound(texts.userNotFound, failed);
  // Money already on a deleted account stays (its ledger still answers); none is added or taken.
  if (user.deletedAt) throw notFound(texts.accountDeleted, failed);
  const key = `${admin.id}:${idempotencyKey(req, failed) ?? randomUUID()}`;
  const fingerprint = requestFingerprint({
    user_id: user._id,
    amount: input.amount,
    type: input.type,
    asDebt,
  });
  const request = await deps.payments.request(key, {
    userId: user._id,
    username: user.username,
    amount: input.amount,
    type: input.type,
    asDebt,
    fingerprint,
    createdBy: admin.id,
  });
  if (request.fingerprint !== fingerprint) throw keyReused(failed);
  if (request.type === 'OUT') {
    await deps.wallet
      .post(`/internal/payments/${request.paymentId}/withdraw`, {
        userId: request.userId,
        amount: request.amount,
        productName: 'Payment',
      })
      .catch((err: unknown) => {
        if (err instanceof HttpError && err.status === 422) throw badRequest(err.message, failed);
        throw err;
      });
  }
  const payment = await deps.payments.recordRequested(request);
  return payment;
}

function adminMessage(payment: Payment): string {
  const amount = `$${toDollars(payment.amount)}`;
  return payment.type === 'OUT'
    ? `${amount} withdrawn from wallet successfully.`
    : `${amount} added to wallet successfully.`;
}
