import { createQueue, createWorker, QUEUE_NAMES, type Logger } from '@raseed/kit';
import type IORedis from 'ioredis';
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import nodemailer from 'nodemailer';

export interface Email {
  to: string;
  subject: string;
  text: string;
  html: string;
  replyTo?: string;
  /**
   * A secret the text and html name as {{secret}} (a password-reset link, the codes of an order
   * delivered from stock), sealed with AES-256-GCM: the job's data in Redis and on the queue
   * board never shows it; the worker opens it just before sending.
   */
  sealed?: string;
}

/** Where an e-mail's sealed secret goes in its text and html. */
export const PLACEHOLDER = '{{secret}}';
const keyOf = (secret: string) => createHash('sha256').update(`raseed e-mail secrets\0${secret}`).digest();

export function sealSecret(key: string, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(key), iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url')).join('.');
}

export function openSecret(key: string, sealed: string): string {
  const [iv, tag, body] = sealed.split('.').map((p) => Buffer.from(p, 'base64url'));
  const decipher = createDecipheriv('aes-256-gcm', keyOf(key), iv!);
  decipher.setAuthTag(tag!);
  return Buffer.concat([decipher.update(body!), decipher.final()]).toString('utf8');
}

/**
 * The e-mail as sent: its sealed secret, if any, put back in its text and html. Opened with the
 * first key that fits: one sealed before a rotation of JWT_SECRET fits the previous key.
 */
export function unsealed(email: Email, keys: string | readonly string[]): Omit<Email, 'sealed'> {
  const { sealed, ...rest } = email;
  if (!sealed) return rest;
  const candidates = typeof keys === 'string' ? [keys] : keys;
  const opened = candidates.map((key) => {
    try {
      return openSecret(key, sealed);
    } catch {
      return undefined;
    }
  });
  const secret = opened.find((s) => s !== undefined);
  if (secret === undefined) throw new Error('the e-mail was sealed with a key this process does not have');
  return {
    ...rest,
    text: rest.text.replaceAll(PLACEHOLDER, secret),
    html: rest.html.replaceAll(PLACEHOLDER, escapeHtml(secret)),
  };
}

export const EMAIL_QUEUE = QUEUE_NAMES.email;

export function emailQueue(redis: IORedis, logger: Logger, prefix: string) {
  return createQueue<Email>(EMAIL_QUEUE, redis, logger, prefix);
}

/** Delivers queued e-mails over SMTP; a failed delivery is retried with backoff by BullMQ. */
export function startEmailWorker(
  redis: IORedis,
  options: { smtpUrl: string; from: string; prefix: string; secretKeys: readonly string[] },
  logger: Logger,
) {
  const { smtpUrl, from } = options;
  const transport = nodemailer.createTransport(smtpUrl);
  const worker = createWorker<Email>(
    EMAIL_QUEUE,
    async (job) => {
      await transport.sendMail({ from, ...unsealed(job.data, options.secretKeys) });
    },
    redis,
    logger,
    { prefix: options.prefix },
  );
  return async () => {
    await worker.close();
    transport.close();
  };
}

/** The reset e-mail, its link sealed with `secretKey` (see Email.sealed). */
export function resetPasswordEmail(to: string, username: string, link: string, secretKey: string): Email {
  return {
    to,
    subject: 'Reset your Raseed password',
    text: `Hello ${username},\n\nUse this link within one hour to choose a new password:\n${PLACEHOLDER}\n\nIf you did not ask for this, ignore this e-mail.`,
    html: `<p>Hello ${escapeHtml(username)},</p><p>Use this link within one hour to choose a new password:</p><p><a href="${PLACEHOLDER}">${PLACEHOLDER}</a></p><p>If you did not ask for this, ignore this e-mail.</p>`,
    sealed: sealSecret(secretKey, link),
  };
}

/** A Contact Us message, to one admin; a reply goes to the sender. */
export function contactEmail(
  to: string,
  input: { email: string; phone?: string; subject: string; message: string },
): Email & { replyTo: string } {
  const from = input.phone ? `${input.email} (${input.phone})` : input.email;
  return {
    to,
    replyTo: input.email,
    subject: `Contact: ${input.subject}`,
    text: `From ${from}:\n\n${input.message}`,
    html: `<p>From ${escapeHtml(from)}:</p><p style="white-space: pre-wrap">${escapeHtml(input.message)}</p>`,
  };
}

/** Text shown in an e-mail's HTML as it is written, whoever wrote it. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
