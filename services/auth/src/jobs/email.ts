import { createQueue, createWorker, QUEUE_NAMES, type Logger } from '@raseed/kit';
import type IORedis from 'ioredis';
import nodemailer from 'nodemailer';

export interface Email {
  to: string;
  subject: string;
  text: string;
  html: string;
  replyTo?: string;
}

export const EMAIL_QUEUE = QUEUE_NAMES.email;

export function emailQueue(redis: IORedis, prefix: string) {
  return createQueue<Email>(EMAIL_QUEUE, redis, prefix);
}

/** Delivers queued e-mails over SMTP; a failed delivery is retried with backoff by BullMQ. */
export function startEmailWorker(
  redis: IORedis,
  options: { smtpUrl: string; from: string; prefix: string },
  logger: Logger,
) {
  const { smtpUrl, from } = options;
  const transport = nodemailer.createTransport(smtpUrl);
  const worker = createWorker<Email>(
    EMAIL_QUEUE,
    async (job) => {
      await transport.sendMail({ from, ...job.data });
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

export function resetPasswordEmail(to: string, username: string, link: string): Email {
  return {
    to,
    subject: 'Reset your Raseed password',
    text: `Hello ${username},\n\nUse this link within one hour to choose a new password:\n${link}\n\nIf you did not ask for this, ignore this e-mail.`,
    html: `<p>Hello ${escapeHtml(username)},</p><p>Use this link within one hour to choose a new password:</p><p><a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p><p>If you did not ask for this, ignore this e-mail.</p>`,
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

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
