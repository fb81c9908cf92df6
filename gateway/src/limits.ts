import type { RequestHandler } from 'express';
import { rateLimit } from 'express-rate-limit';
import type IORedis from 'ioredis';
import { RedisStore, type RedisReply } from 'rate-limit-redis';

/**
 * Per-address limits on the sign-in, sign-up, password-reset and contact calls, counted in
 * Redis so every gateway replica shares them. Sign-in counts failures only.
 */
export function authRateLimits(redis: IORedis, limit: number, windowSeconds: number): RequestHandler[] {
  const minutes = Math.ceil(windowSeconds / 60);
  const make = (name: string, paths: string[], skipSuccessfulRequests: boolean) => {
    const limiter = rateLimit({
      windowMs: windowSeconds * 1000,
      limit,
      skipSuccessfulRequests,
      standardHeaders: 'draft-7',
      legacyHeaders: false,
      // While Redis is away, sign-in stays possible rather than every sign-in failing.
      passOnStoreError: true,
      store: new RedisStore({
        prefix: `raseed:rl:${name}:`,
        sendCommand: (command: string, ...args: string[]) =>
          redis.call(command, ...args) as Promise<RedisReply>,
      }),
      handler: (_req, res) => {
        res.status(429).json({ error: `Too many attempts. Please try again in ${minutes} minutes.` });
      },
    });
    const handler: RequestHandler = (req, res, next) =>
      req.method === 'POST' && paths.some((p) => req.path === p || req.path.startsWith(`${p}/`))
        ? limiter(req, res, next)
        : next();
    return handler;
  };
  return [
    make('signin', ['/api/signin'], true),
    make('signup', ['/api/signup'], false),
    make('reset', ['/api/reset-password-request', '/api/reset-password'], false),
    make('contact', ['/api/contact'], false),
  ];
}
