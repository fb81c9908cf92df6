import type { IncomingMessage } from 'node:http';
import { Limit } from '@raseed/kit';
import type { RequestHandler } from 'express';
import type IORedis from 'ioredis';
import { answer } from './answer';
import type { GatewayConfig } from './config';
import { pathOf } from './paths';

interface AddressRule {
  paths: string[];
  limit: Limit;
  /** Only failed tries count (sign-in): a right password is never held against the address. */
  failuresOnly?: boolean;
}

/**
 * Per-address limits, in front of the services: failed sign-ins (a threshold well above auth's
 * per-account one, since many customers may share one carrier address), sign-ups, password-reset
 * requests and contact messages. Counted in Redis across gateway instances; while Redis is away
 * each gateway counts on its own (see Limit). The address is the client's, as TRUST_PROXY allows
 * it to be read (`addressOf`).
 */
export function addressLimits(
  redis: IORedis,
  config: Pick<GatewayConfig, 'AUTH_RATE_LIMIT' | 'AUTH_RATE_WINDOW_SECONDS' | 'SIGNIN_ADDRESS_FAILURES'>,
  addressOf: (req: IncomingMessage) => string,
): RequestHandler {
  const window = config.AUTH_RATE_WINDOW_SECONDS;
  const rules: AddressRule[] = [
    {
      paths: ['/api/signin'],
      limit: new Limit(redis, 'signin-address', config.SIGNIN_ADDRESS_FAILURES, window),
      failuresOnly: true,
    },
    { paths: ['/api/signup'], limit: new Limit(redis, 'signup-address', config.AUTH_RATE_LIMIT, window) },
    {
      paths: ['/api/reset-password-request', '/api/reset-password'],
      limit: new Limit(redis, 'reset-address', config.AUTH_RATE_LIMIT, window),
    },
    { paths: ['/api/contact'], limit: new Limit(redis, 'contact-address', config.AUTH_RATE_LIMIT, window) },
  ];
  return async (req, res, next) => {
    const path = pathOf(req);
    const rule =
      req.method === 'POST'
        ? rules.find((r) => r.paths.some((p) => path === p || path.startsWith(`${p}/`)))
        : undefined;
    if (!rule) {
      next();
      return;
    }
    const address = addressOf(req);
    const over = rule.failuresOnly ? await rule.limit.spent(address) : await rule.limit.count(address);
    if (over) {
      const refusal = rule.limit.refusal();
      answer(res, refusal.status, { error: refusal.message });
      return;
    }
    if (rule.failuresOnly) {
      res.on('finish', () => {
        if (res.statusCode === 401) void rule.limit.count(address).catch(() => undefined);
      });
    }
    next();
  };
}
