import { formatDollars } from '@raseed/kit';
import type { DigestItem } from '../data/digest';
import { escapeHtml, PLACEHOLDER, sealSecret, type Email } from '../jobs/email';

/** A customer told of their top-ups and orders. */
export interface Recipient {
  id: string;
  username: string;
  email: string;
}

/** Micro-dollars as the store's screens print them: 25.00$. */
const money = (micros: number) => `${formatDollars(micros)}$`;

/** An order's number as My Orders shows it. */
const orderNumber = (orderId: string) => `#${orderId.slice(-8)}`;

/** Paragraphs of plain text, and the same as HTML: every text escaped, each link a link. */
type Line = string | { text: string; link: string };

function compose(to: string, subject: string, lines: Line[]): Email {
  const text = lines.map((l) => (typeof l === 'string' ? l : `${l.text}: ${l.link}`)).join('\n\n');
  const html = lines
    .map((l) =>
      typeof l === 'string'
        ? `<p style="white-space: pre-wrap">${escapeHtml(l)}</p>`
        : `<p>${escapeHtml(l.text)}: <a href="${escapeHtml(l.link)}">${escapeHtml(l.link)}</a></p>`,
    )
    .join('');
  return { to, subject, text, html };
}

function customerEmail(publicUrl: string, user: Recipient, subject: string, lines: Line[]): Email {
  return compose(user.email, subject, [
    `Hello ${user.username},`,
    ...lines,
    {
      text: 'You can turn off e-mails about your top-ups and orders on your profile',
      link: `${publicUrl}/profile/${user.id}`,
    },
  ]);
}

export function topUpConfirmedEmail(
  publicUrl: string,
  user: Recipient,
  topUp: { amount: number; method: string },
): Email {
  return customerEmail(publicUrl, user, `Your top-up of ${money(topUp.amount)} is confirmed`, [
    `Your ${topUp.method} top-up of ${money(topUp.amount)} is confirmed and the amount is in your wallet.`,
    { text: 'See it in My Payments', link: `${publicUrl}/my-payments` },
  ]);
}

export function topUpRejectedEmail(publicUrl: string, user: Recipient, topUp: { amount: number }): Email {
  return customerEmail(publicUrl, user, `Your top-up of ${money(topUp.amount)} was rejected`, [
    `Your top-up of ${money(topUp.amount)} was rejected, so nothing was added to your wallet.`,
    { text: 'If you think this is a mistake, write to us', link: `${publicUrl}/contact-us` },
  ]);
}

/** A code delivered from stock, as orders reveals it: the code, and its serial, PIN and expiry when it has them. */
export interface DeliveredCode {
  code: string;
  serial?: string;
  pin?: string;
  expires?: string;
}

/** One line a code: 'Code: …, Serial: …, PIN: …, Expires: …'. */
export const codeLines = (codes: DeliveredCode[]) =>
  codes
    .map((c) =>
      [
        `Code: ${c.code}`,
        c.serial && `Serial: ${c.serial}`,
        c.pin && `PIN: ${c.pin}`,
        c.expires && `Expires: ${c.expires}`,
      ]
        .filter(Boolean)
        .join(', '),
    )
    .join('\n');

/**
 * The order confirmed; an order delivered from stock carries its codes whole, sealed with
 * `secretKey` (see Email.sealed) so the queued e-mail never shows them.
 */
export function orderConfirmedEmail(
  publicUrl: string,
  user: Recipient,
  order: { orderId: string; total: number; replay: string | null },
  delivered?: { codes: DeliveredCode[]; secretKey: string },
): Email {
  const number = orderNumber(order.orderId);
  const codes = delivered?.codes ?? [];
  const email = customerEmail(publicUrl, user, `Your order ${number} is confirmed`, [
    `Your order ${number} of ${money(order.total)} is confirmed.`,
    ...(order.replay ? [order.replay] : []),
    ...(codes.length
      ? [
          codes.length === 1 ? 'Your code:' : `Your ${codes.length} codes:`,
          PLACEHOLDER,
          'Keep this e-mail to yourself: whoever has a code can use it.',
        ]
      : []),
    { text: 'See it in My Orders', link: `${publicUrl}/my-orders` },
  ]);
  return delivered && codes.length
    ? { ...email, sealed: sealSecret(delivered.secretKey, codeLines(codes)) }
    : email;
}

export function orderRejectedEmail(
  publicUrl: string,
  user: Recipient,
  order: { orderId: string; total: number; reason: string | null },
): Email {
  const number = orderNumber(order.orderId);
  return customerEmail(publicUrl, user, `Your order ${number} was rejected`, [
    order.reason
      ? `Your order ${number} was rejected: ${order.reason}`
      : `Your order ${number} was rejected.`,
    `Its ${money(order.total)} went back to your wallet.`,
    { text: 'See it in My Orders', link: `${publicUrl}/my-orders` },
  ]);
}

/** Admins told that a product's stock of codes runs low, with where to add more. */
export function lowStockEmail(
  publicUrl: string,
  to: string,
  stock: { productName: string; available: number; threshold: number },
): Email {
  const left = `${stock.available} ${stock.available === 1 ? 'code' : 'codes'} left`;
  return compose(to, `Low stock: ${stock.productName}, ${left}`, [
    `${stock.productName} has ${left} in stock; its low-stock alert is at ${stock.threshold}.`,
    { text: 'Add codes on the Create page', link: `${publicUrl}/admin/create` },
  ]);
}

const count = (n: number, one: string) => `${n} new ${one}${n === 1 ? '' : 's'}`;
const when = (at: Date) => `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/**
 * The admins' digest of the top-ups and orders that came in since the last one; `customers`
 * names each item's customer (username and e-mail) by user id.
 */
export function adminDigestEmail(
  publicUrl: string,
  to: string,
  items: DigestItem[],
  customers: Map<string, string>,
): Email {
  const topUps = items.filter((i) => i.kind === 'top-up');
  const orders = items.filter((i) => i.kind === 'order');
  const disputed = items.filter((i) => i.kind === 'disputed');
  const stuck = items.filter((i) => i.kind === 'stuck');
  const help = { text: 'Decide them on Disputed & Stuck', link: `${publicUrl}/admin/disputed-orders` };
  const customer = (i: DigestItem) => customers.get(i.userId) ?? `user ${i.userId}`;
  const sections = [
    {
      title: `Top-ups waiting (${topUps.length})`,
      page: { text: 'Confirm or reject them on Active Payments', link: `${publicUrl}/admin/active-payments` },
      lines: topUps.map((i) => `${money(i.amount)} by ${i.what} from ${customer(i)}, ${when(i.at)}`),
    },
    {
      title: `Orders waiting (${orders.length})`,
      page: { text: 'See them on Active Orders', link: `${publicUrl}/admin/active-orders` },
      lines: orders.map((i) => `${i.what}, ${money(i.amount)}, from ${customer(i)}, ${when(i.at)}`),
    },
    {
      title: `Disputed orders (${disputed.length})`,
      page: help,
      lines: disputed.map((i) => `Order #${i.ref.slice(-8)}: ${i.what}, ${when(i.at)}`),
    },
    {
      title: `Orders stuck at the supplier (${stuck.length})`,
      page: help,
      lines: stuck.map(
        (i) =>
          `Order #${i.ref.slice(-8)}: ${i.what}, ${money(i.amount)}, from ${customer(i)}, placed ${when(i.at)}`,
      ),
    },
  ].filter((s) => s.lines.length);
  const subject = `Waiting for you: ${[
    topUps.length ? count(topUps.length, 'top-up') : '',
    orders.length ? count(orders.length, 'order') : '',
    disputed.length ? count(disputed.length, 'disputed order') : '',
    stuck.length ? count(stuck.length, 'stuck order') : '',
  ]
    .filter(Boolean)
    .join(', ')
    .replace(/, ([^,]*)$/, ' and $1')}`;
  const text = [
    'New since the last digest:',
    ...sections.map((s) =>
      [`${s.title}`, ...s.lines.map((l) => `- ${l}`), `${s.page.text}: ${s.page.link}`].join('\n'),
    ),
  ].join('\n\n');
  const html = [
    '<p>New since the last digest:</p>',
    ...sections.map(
      (s) =>
        `<h3>${escapeHtml(s.title)}</h3><ul>${s.lines.map((l) => `<li>${escapeHtml(l)}</li>`).join('')}</ul>` +
        `<p><a href="${escapeHtml(s.page.link)}">${escapeHtml(s.page.text)}</a></p>`,
    ),
  ].join('');
  return { to, subject, text, html };
}
