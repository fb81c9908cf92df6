import {
  assertSelfOrAdmin,
  notFound,
  objectIdPattern,
  pageAnswer,
  pageSchema,
  parseInput,
  SESSION_COOKIE,
  z,
  type ApiRoutes,
} from '@raseed/kit';
import type { AuthDeps } from '../deps';
import { toAdminView, type User } from '../data/users';
import { registerAccount } from '../domain/accounts';
import { deleteAccount } from '../domain/accounts';
import { accountSchema, discountSchema, escapeRegex, searchSchema, texts } from '../domain/rules';

function userIdParam(id: unknown): string {
  if (typeof id !== 'string' || !objectIdPattern.test(id)) throw notFound(texts.userNotFound);
  return id;
}

const adminView = z.object({
  id: z.string(),
  username: z.string(),
  email: z.string(),
  phone: z.string(),
  role: z.enum(['admin', 'user']),
  created_at: z.string(),
  percentage: z.number().nullable(),
  percentage_set_at: z.string().nullable(),
  debt: z.number().openapi({ description: 'Dollars an admin advanced as credit, still owed' }),
  sales: z.number().openapi({ description: 'Confirmed top-ups, in dollars' }),
  lastsales: z
    .number()
    .openapi({ description: 'Confirmed top-ups since the discount was last set or removed' }),
});
const outcome = z.object({ success: z.boolean(), message: z.string() });

/** Users, admins and discounts (spec §7); everything but one's own account is admin-only. */
export function userRoutes(api: ApiRoutes, deps: AuthDeps): void {
  const { users, figures } = deps;

  async function adminViews(list: User[]) {
    const found = await figures.of(list);
    return list.map((user) => toAdminView(user, found.get(user._id.toString())));
  }

  api.route(
    {
      method: 'get',
      path: '/api/users',
      summary: 'Users, newest first, with their debt and sales (Users List)',
      access: 'admin',
      query: pageSchema,
      answer: z.object({
        users: z.array(adminView),
        totalPages: z.number(),
        page: z.number(),
        total: z.number(),
      }),
    },
    async (req, res) => {
      const query = parseInput(pageSchema, req.query);
      const result = await users.page(query.page, query.limit);
      res.json({ users: await adminViews(result.users), ...pageAnswer(query, result.total) });
    },
  );

  api.route(
    {
      method: 'get',
      path: '/api/users/search',
      summary:
        'A page of the users whose name, e-mail or phone contains the query, ignoring case, newest first; X-Total-Count and X-Total-Pages tell how many there are',
      access: 'admin',
      query: searchSchema,
      answer: z.array(adminView),
    },
    async (req, res) => {
      const query = parseInput(searchSchema, req.query);
      const found = await users.search(escapeRegex(query.query), query.page, query.limit);
      const { total, totalPages } = pageAnswer(query, found.total);
      res.set({ 'X-Total-Count': String(total), 'X-Total-Pages': String(totalPages) });
      res.json(await adminViews(found.users));
    },
  );

  api.route(
    {
      method: 'get',
      path: '/api/users/count',
      summary: 'How many accounts exist',
      access: 'admin',
      answer: z.object({ count: z.number() }),
    },
    async (_req, res) => {
      res.json({ count: await users.count() });
    },
  );

  api.route(
    {
      method: 'get',
      path: '/api/users/{id}',
      summary: "An account's details (one's own, or any for an admin)",
      access: 'user',
      answer: z.object({ user: adminView.pick({ username: true, email: true, phone: true, role: true }) }),
    },
    async (req, res) => {
      const id = userIdParam(req.params.id);
      assertSelfOrAdmin(req, id, texts.noProfilePermission);
      const user = await users.findById(id);
      if (!user) throw notFound(texts.userNotFound);
      const { username, email, phone, role, created_at, percentage } = toAdminView(user);
      res.json({ user: { id, username, email, phone, role, created_at, percentage } });
    },
  );

  api.route(
    {
      method: 'delete',
      path: '/api/users/{id}',
      summary: "Deletes an account (one's own, or any for an admin); the last admin stays",
      access: 'user',
      answer: outcome,
    },
    async (req, res) => {
      const id = userIdParam(req.params.id);
      const caller = assertSelfOrAdmin(req, id, texts.noProfilePermission);
      const user = await users.findById(id);
      if (!user) throw notFound(texts.userNotFound);
      // Its sessions end first: a deleted account (an admin's above all) keeps no access.
      if (!(await deleteAccount(deps, id, user.role))) throw notFound(texts.userNotFound);
      if (caller.id === id) res.clearCookie(SESSION_COOKIE, { path: '/' });
      res.json({ success: true, message: 'Account deleted successfully' });
    },
  );

  api.route(
    {
      method: 'post',
      path: '/api/create-admin',
      summary: 'Creates another admin account',
      access: 'admin',
      body: accountSchema,
      answer: outcome,
      status: 201,
    },
    async (req, res) => {
      const failed = { success: false };
      const input = parseInput(accountSchema, req.body, failed);
      await registerAccount(users, deps.passwords, input, 'admin', failed);
      res.status(201).json({ success: true, message: 'Admin created successfully' });
    },
  );

  api.route(
    {
      method: 'post',
      path: '/api/discount',
      summary:
        "Sets (percentage > 0) or removes (null) a user's discount; sales since it are counted from now",
      access: 'admin',
      body: discountSchema,
      answer: outcome,
    },
    async (req, res) => {
      const failed = { success: false };
      const input = parseInput(discountSchema, req.body, failed);
      const id = userIdParam(input.user_id);
      if (!(await users.setDiscount(id, input.percentage))) throw notFound(texts.userNotFound, failed);
      res.json({
        success: true,
        message:
          input.percentage === null
            ? 'Discount removed successfully'
            : 'Discount percentage set successfully',
      });
    },
  );

  api.route(
    {
      method: 'get',
      path: '/api/userdiscount/{userId}',
      summary: "A user's discount percentage (one's own, or any for an admin)",
      access: 'user',
      answer: z.object({ success: z.boolean(), percentage: z.number().nullable() }),
    },
    async (req, res) => {
      const id = userIdParam(req.params.userId);
      assertSelfOrAdmin(req, id);
      const user = await users.findById(id);
      if (!user) throw notFound(texts.userNotFound, { success: false });
      res.json({ success: true, percentage: user.percentage ?? null });
    },
  );
}
