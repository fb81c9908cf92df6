import {
  assertSelfOrAdmin,
  conflict,
  currentUser,
  notFound,
  objectIdPattern,
  parseInput,
  requireAdmin,
  SESSION_COOKIE,
  toMicros,
} from '@raseed/kit';
import { Router } from 'express';
import type { AuthDeps } from '../deps';
import { toAdminView } from '../data/users';
import { registerAccount } from '../domain/accounts';
import { accountSchema, discountSchema, escapeRegex, pageSchema, searchSchema, texts } from '../domain/rules';

function userIdParam(id: string | undefined): string {
  if (!id || !objectIdPattern.test(id)) throw notFound(texts.userNotFound);
  return id;
}

/** Users, admins and discounts (spec §7); everything but one's own account is admin-only. */
export function userRoutes(deps: AuthDeps): Router {
  const { users } = deps;
  const router = Router();

  router.get('/api/users', requireAdmin, async (req, res) => {
    const { page, limit } = parseInput(pageSchema, req.query);
    const result = await users.page(page, limit);
    res.json({
      users: result.users.map(toAdminView),
      totalPages: Math.max(1, Math.ceil(result.total / limit)),
      page,
      total: result.total,
    });
  });

  router.get('/api/users/search', requireAdmin, async (req, res) => {
    const { query } = parseInput(searchSchema, req.query);
    const found = await users.search(escapeRegex(query));
    res.json(found.map(toAdminView));
  });

  router.get('/api/users/count', requireAdmin, async (_req, res) => {
    res.json({ count: await users.count() });
  });

  router.get('/api/users/:id', async (req, res) => {
    currentUser(req);
    const id = userIdParam(req.params.id);
    assertSelfOrAdmin(req, id, texts.noProfilePermission);
    const user = await users.findById(id);
    if (!user) throw notFound(texts.userNotFound);
    const { username, email, phone, role, created_at, percentage } = toAdminView(user);
    res.json({ user: { id, username, email, phone, role, created_at, percentage } });
  });

  router.delete('/api/users/:id', async (req, res) => {
    currentUser(req);
    const id = userIdParam(req.params.id);
    const caller = assertSelfOrAdmin(req, id, texts.noProfilePermission);
    const user = await users.findById(id);
    if (!user) throw notFound(texts.userNotFound);
    if (user.role === 'admin' && (await users.countAdmins()) <= 1) {
      throw conflict('The last admin account cannot be deleted');
    }
    if (!(await users.delete(id))) throw notFound(texts.userNotFound);
    deps.published();
    if (caller.id === id) res.clearCookie(SESSION_COOKIE, { path: '/' });
    res.json({ success: true, message: 'Account deleted successfully' });
  });

  router.post('/api/create-admin', requireAdmin, async (req, res) => {
    const failed = { success: false };
    const input = parseInput(accountSchema, req.body, failed);
    await registerAccount(users, deps.passwords, input, 'admin', failed);
    deps.published();
    res.status(201).json({ success: true, message: 'Admin created successfully' });
  });

  router.post('/api/discount', requireAdmin, async (req, res) => {
    const failed = { success: false };
    const input = parseInput(discountSchema, req.body, failed);
    const id = userIdParam(input.user_id);
    const lastSales = input.userPaymentSums === undefined ? undefined : toMicros(input.userPaymentSums);
    if (!(await users.setDiscount(id, input.percentage, lastSales)))
      throw notFound(texts.userNotFound, failed);
    deps.published();
    res.json({
      success: true,
      message:
        input.percentage === null ? 'Discount removed successfully' : 'Discount percentage set successfully',
    });
  });

  router.get('/api/userdiscount/:userId', async (req, res) => {
    currentUser(req);
    const id = userIdParam(req.params.userId);
    assertSelfOrAdmin(req, id);
    const user = await users.findById(id);
    if (!user) throw notFound(texts.userNotFound, { success: false });
    res.json({ success: true, percentage: user.percentage ?? null });
  });

  return router;
}
