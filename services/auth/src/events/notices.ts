import { HttpError, withTrace, type EventEnvelope, type Logger, type ServiceClient } from '@raseed/kit';
import type { Queue } from 'bullmq';
import { Types } from 'mongoose';
import type { UserStore } from '../data/users';
import {
  orderConfirmedEmail,
  orderRejectedEmail,
  topUpConfirmedEmail,
  topUpRejectedEmail,
  type DeliveredCode,
  type Recipient,
} from '../domain/notices';
import type { Email } from '../jobs/email';

export interface NoticeDeps {
  users: UserStore;
  emails: Queue<Email>;
  publicUrl: string;
  /** Where the codes of an order confirmed from stock are read (unset: its e-mail carries none). */
  orders?: ServiceClient;
  /** The key an e-mail's secret is sealed with (Email.sealed). */
  secretKey: string;
  logger: Logger;
}

/** The product name of a payment an admin made (spec §3): a credit, a debt credit or a withdrawal. */
const ADMIN_PAYMENT = 'Payment';

/**
 * E-mails the customer the event is about, unless they turned such e-mails off or their account
 * is gone. The job's id is the event's, so a redelivered event queues no second e-mail.
 */
async function notify(
  deps: NoticeDeps,
  event: EventEnvelope,
  userId: string,
  email: (user: Recipient) => Email | Promise<Email>,
): Promise<void> {
  const user = Types.ObjectId.isValid(userId) ? await deps.users.findById(userId) : null;
  if (!user || user.emailNotifications === false) return;
  const recipient = { id: userId, username: user.username, email: user.email };
  await deps.emails.add('notice', withTrace(await email(recipient)), { jobId: `notice-${event.id}` });
}

/**
 * A customer's own top-up, confirmed. An admin's credit or withdrawal (also payment.confirmed) is
 * not e-mailed: the admin makes it with the customer, who sees it at once in their balance and
 * transactions, while a top-up is something the customer submitted and waits to hear about.
 */
export const onTopUpConfirmed =
  (deps: NoticeDeps) =>
  async (event: EventEnvelope<'payment.confirmed'>): Promise<void> => {
    const { data } = event;
    if (data.type !== 'IN' || data.productName === ADMIN_PAYMENT) return;
    await notify(deps, event, data.userId, (user) =>
      topUpConfirmedEmail(deps.publicUrl, user, { amount: data.amount, method: data.productName }),
    );
  };

/** Only a customer's waiting top-up can be rejected. */
export const onTopUpRejected =
  (deps: NoticeDeps) =>
  async (event: EventEnvelope<'payment.rejected'>): Promise<void> => {
    await notify(deps, event, event.data.userId, (user) =>
      topUpRejectedEmail(deps.publicUrl, user, { amount: event.data.amount }),
    );
  };

/** An order confirmed; one delivered from stock carries its codes (read from orders only for a customer who gets the e-mail). */
export const onOrderConfirmed =
  (deps: NoticeDeps) =>
  async (event: EventEnvelope<'order.confirmed'>): Promise<void> => {
    await notify(deps, event, event.data.userId, async (user) => {
      const codes = await deliveredCodes(deps, event.data);
      return orderConfirmedEmail(
        deps.publicUrl,
        user,
        event.data,
        codes ? { codes, secretKey: deps.secretKey } : undefined,
      );
    });
  };

/** The codes orders delivered to the order from stock, or null for any other order (orders answers 404). */
async function deliveredCodes(
  deps: NoticeDeps,
  order: { orderId: string; userId: string },
): Promise<DeliveredCode[] | null> {
  if (!deps.orders) return null;
  const answer = await deps.orders
    .get<{ userId: string; codes: DeliveredCode[] }>(
      `/internal/orders/${encodeURIComponent(order.orderId)}/codes`,
    )
    .catch((err: unknown) => {
      if (err instanceof HttpError && err.status === 404) return null;
      throw err;
    });
  if (answer && answer.userId !== order.userId) {
    deps.logger.warn(
      { orderId: order.orderId },
      'the codes of an order belong to another customer: not e-mailed',
    );
    return null;
  }
  return answer?.codes.length ? answer.codes : null;
}

export const onOrderRejected =
  (deps: NoticeDeps) =>
  async (event: EventEnvelope<'order.rejected'>): Promise<void> => {
    await notify(deps, event, event.data.userId, (user) =>
      orderRejectedEmail(deps.publicUrl, user, event.data),
    );
  };
