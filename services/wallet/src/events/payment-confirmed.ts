import type { EventEnvelope, Logger } from '@raseed/kit';
import type { Ledger } from '../data/ledger';
import { InsufficientBalance, movementKeys } from '../domain/rules';

/**
 * A confirmed payment moves its money once, under the payment's key: a top-up or an
 * admin's credit (raising the debt too when given as debt). An admin's withdrawal was
 * debited before it was confirmed, so here it finds its first result.
 */
export const onPaymentConfirmed =
  (ledger: Ledger, logger: Logger) => async (event: EventEnvelope<'payment.confirmed'>) => {
    const { paymentId, userId, type, amount, productName, asDebt } = event.data;
    try {
      await ledger.move({
        account: userId,
        key: movementKeys.payment(paymentId),
        kind: 'movement',
        type,
        amount,
        debt: asDebt ? { add: amount } : undefined,
        productName,
      });
    } catch (err) {
      // Only a withdrawal can be short, and withdrawals are debited before they are confirmed.
      if (!(err instanceof InsufficientBalance)) throw err;
      logger.error(
        { paymentId, userId, balance: err.balance },
        'a confirmed withdrawal found the balance short',
      );
    }
  };
