import {
  idempotencyKey,
  assertSelfOrAdmin,
  currentUser,
  pageAnswer,
  pageSchema,
  parseInput,
  requestFingerprint,
  toDollars,
  z,
  type ApiRoutes,
} from '@raseed/kit';
import { randomUUID } from 'node:crypto';
import type { Ledger, LedgerEntry } from '../data/ledger';
import { balanceQuerySchema, editDebtSchema, movementKeys, userIdSchema } from '../domain/rules';

const transaction = (entry: LedgerEntry) => ({
  id: entry._id.toString(),
  amount: toDollars(entry.amount),
  type: entry.type ?? 'IN',
  status: entry.status,
  created_at: entry.createdAt,
  product_name: entry.productName,
});

/** Balance, debt and transactions (spec §7): one's own, or anyone's for an admin. */
export function walletRoutes(api: ApiRoutes, ledger: Ledger): void {
  api.route(
    {
      method: 'get',
      path: '/api/balance',
      summary: "A wallet's balance in dollars (the caller's own unless an admin names a user)",
      access: 'user',
      query: balanceQuerySchema,
      answer: z.object({ balance: z.number() }),
    },
    async (req, res) => {
      const { user_id } = parseInput(balanceQuerySchema, req.query);
      const account = user_id ?? currentUser(req).id;
      assertSelfOrAdmin(req, account);
      const last = await ledger.last(account, { verified: true });
      res.json({ balance: toDollars(last.balance) });
    },
  );

  api.route(
    {
      method: 'get',
      path: '/api/debt',
      summary: "A user's remaining debt in dollars",
      access: 'user',
      query: balanceQuerySchema,
      answer: z.object({ debt: z.number() }),
    },
    async (req, res) => {
      const { user_id } = parseInput(balanceQuerySchema, req.query);
      const account = user_id ?? currentUser(req).id;
      assertSelfOrAdmin(req, account);
      const last = await ledger.last(account, { verified: true });
      res.json({ debt: toDollars(last.debt) });
    },
  );

  api.route(
    {
      method: 'post',
      path: '/api/editdebt',
      summary:
        "Sets a user's debt, unless it is no longer expected_debt (an Idempotency-Key header makes a retry safe)",
      access: 'admin',
      body: editDebtSchema,
      answer: z.object({ debtStatus: z.boolean(), message: z.string(), debt: z.number() }),
    },
    async (req, res) => {
      const failed = { debtStatus: false };
      const { user_id, newdebt, expected_debt } = parseInput(editDebtSchema, req.body, failed);
      const operation = idempotencyKey(req, failed) ?? randomUUID();
      const { entry } = await ledger.move({
        account: user_id,
        key: movementKeys.debtEdit(currentUser(req).id, operation),
        kind: 'debt',
        amount: 0,
        debt: { set: newdebt },
        expectedDebt: expected_debt,
        fingerprint: requestFingerprint({ user_id, newdebt, expected_debt }),
        productName: 'Debt',
      });
      res.json({ debtStatus: true, message: 'debt has changed successfully.', debt: toDollars(entry.debt) });
    },
  );

  api.route(
    {
      method: 'get',
      path: '/api/profile/{id}',
      summary: "A user's wallet transactions, newest first, 10 a page",
      access: 'user',
      query: pageSchema,
      answer: z.object({
        success: z.boolean(),
        transactions: z.array(z.object({ id: z.string() }).passthrough()),
      }),
    },
    async (req, res) => {
      const account = parseInput(userIdSchema, req.params.id);
      assertSelfOrAdmin(req, account, 'You do not have permission to access this profile.');
      const page = parseInput(pageSchema, req.query);
      const { items, total } = await ledger.transactions(account, page.page, page.limit);
      res.json({ success: true, transactions: items.map(transaction), ...pageAnswer(page, total) });
    },
  );
}
