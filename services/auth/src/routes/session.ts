import {
  badRequest,
  parseInput,
  SESSION_COOKIE,
  signSession,
  withTrace,
  unauthorized,
  z,
  type ApiRoutes,
} from '@raseed/kit';
import type { CookieOptions } from 'express';
import type { AuthDeps } from '../deps';
import { registerAccount } from '../domain/accounts';
import { hashResetToken, newResetToken } from '../domain/passwords';
import { endSessions } from '../domain/sessions';
import { accountSchema, resetRequestSchema, resetSchema, signInSchema, texts } from '../domain/rules';
import { resetPasswordEmail } from '../jobs/email';

/** Sign-up, sign-in, logout and password reset (spec §2 sign-in screens, §7). */
export function sessionRoutes(api: ApiRoutes, deps: AuthDeps): void {
  const { config, users, resets, passwords, limits } = deps;
  const cookie: CookieOptions = {
    httpOnly: true,
    sameSite: 'lax',
    secure: config.COOKIE_SECURE,
    path: '/',
  };

  api.route(
    {
      method: 'post',
      path: '/api/signup',
      summary: 'Registers a customer account',
      access: 'public',
      body: accountSchema,
      answer: z.object({ signupStatus: z.boolean(), message: z.string() }),
      status: 201,
    },
    async (req, res) => {
      const failed = { signupStatus: false };
      const input = parseInput(accountSchema, req.body, failed);
      await registerAccount(users, passwords, input, 'user', failed);
      res.status(201).json({ signupStatus: true, message: 'Registration successful! Please sign in.' });
    },
  );

  api.route(
    {
      method: 'post',
      path: '/api/signin',
      summary: 'Signs in: sets the session cookie and answers the token',
      access: 'public',
      body: signInSchema,
      answer: z.object({ signInStatus: z.boolean(), message: z.string(), token: z.string() }),
    },
    async (req, res) => {
      const failed = { signInStatus: false };
      const { email, password } = parseInput(signInSchema, req.body, failed);
      // Counted per account across addresses: guessing one account's password from many
      // addresses is held up; other people's failures on a shared address are not counted here.
      const account = email.toLowerCase();
      if (await limits.signInFailures.spent(account)) throw limits.signInFailures.refusal(failed);
      const user = await users.findByEmailWithPassword(email);
      if (!(await passwords.verify(user?.passwordHash ?? undefined, password)) || !user) {
        await limits.signInFailures.count(account);
        throw unauthorized('Invalid email or password', failed);
      }
      await limits.signInFailures.clear(account);
      const token = signSession(
        {
          id: user._id.toString(),
          username: user.username,
          email: user.email,
          role: user.role,
          phone: user.phone,
          percentage: user.percentage ?? null,
        },
        config.JWT_SECRET,
        config.JWT_TTL_SECONDS,
      );
      res.cookie(SESSION_COOKIE, token, { ...cookie, maxAge: config.JWT_TTL_SECONDS * 1000 });
      res.json({ signInStatus: true, token, message: 'Sign in successful!' });
    },
  );

  api.route(
    {
      method: 'post',
      path: '/api/logout',
      summary: "Signs out: ends every session of the caller's account and clears the session cookie",
      access: 'public',
      answer: z.object({ message: z.string() }),
    },
    async (req, res) => {
      if (req.user) await endSessions(deps, req.user.id);
      res.clearCookie(SESSION_COOKIE, cookie);
      res.json({ message: 'Logged out successfully' });
    },
  );

  // The answer is the same whether or not the address has an account.
  api.route(
    {
      method: 'post',
      path: '/api/reset-password-request',
      summary: 'E-mails a password reset link if the address has an account',
      access: 'public',
      body: resetRequestSchema,
      answer: z.object({ status: z.boolean(), message: z.string() }),
    },
    async (req, res) => {
      const { email } = parseInput(resetRequestSchema, req.body, { status: false });
      // Counted for every address asked about, so the answer tells nothing of who has an account.
      if (await limits.resetRequests.count(email.toLowerCase()))
        throw limits.resetRequests.refusal({ status: false });
      const user = await users.findByEmail(email);
      if (user) {
        const { token, hash } = newResetToken();
        const resetId = await resets.create(user._id.toString(), hash, config.RESET_TOKEN_TTL_MINUTES);
        const link = `${config.PUBLIC_URL}/reset-password/${token}`;
        await deps.emails.add(
          'reset-password',
          withTrace(resetPasswordEmail(user.email, user.username, link, config.JWT_SECRET)),
          {
            jobId: `reset-${resetId}`,
            // The job holds a live link; keep it out of Redis once delivered.
            removeOnComplete: true,
          },
        );
      }
      await resets.purgeExpired();
      res.json({ status: true, message: texts.resetSent });
    },
  );

  api.route(
    {
      method: 'post',
      path: '/api/reset-password/{token}',
      summary: "Sets a new password with a reset link's token",
      access: 'public',
      body: resetSchema,
      answer: z.object({ status: z.boolean(), message: z.string() }),
    },
    async (req, res) => {
      const failed = { status: false };
      const { newPassword } = parseInput(resetSchema, req.body, failed);
      const token = String(req.params.token);
      if (!/^[\w-]{20,100}$/.test(token)) throw badRequest(texts.resetFailed, failed);
      const userId = await resets.consume(hashResetToken(token));
      // Whoever held a session (perhaps the reason for the reset) is out before the new password counts.
      if (userId) await endSessions(deps, userId);
      if (!userId || !(await users.setPassword(userId, await passwords.hash(newPassword)))) {
        throw badRequest(texts.resetFailed, {
          ...failed,
          message: 'This reset link is invalid, used or expired.',
        });
      }
      res.json({ status: true, message: texts.resetDone });
    },
  );
}
