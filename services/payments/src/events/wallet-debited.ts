import type { EventEnvelope, Logger } from '@raseed/kit';
import type { PaymentStore } from '../data/payments';

/**
 * An admin's withdrawal is requested here, debited by the wallet, then recorded here; if
 * this service stopped after the debit, the wallet's event records it now (once: the
 * payment's id is the wallet's key). Only a withdrawal requested here is recorded.
 */
export const onWalletDebited =
  (payments: PaymentStore, logger: Logger) => async (event: EventEnvelope<'wallet.debited'>) => {
    const paymentId = /^payment:([a-f0-9]{24})$/.exec(event.data.key)?.[1];
    if (!paymentId) return;
    const request = await payments.requestFor(paymentId);
    if (!request) {
      logger.error(
        { key: event.data.key, userId: event.data.userId },
        'the wallet debited a payment never requested here',
      );
      return;
    }
    await payments.recordRequested(request);
  };
