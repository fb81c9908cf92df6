import pino, { type Logger } from 'pino';

export type { Logger };

export function createLogger(service: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({
    name: service,
    level,
    redact: { paths: ['req.headers.cookie', 'req.headers.authorization', '*.password'], remove: true },
  });
}
