import type { EventEnvelope } from '@raseed/kit';
import { Types } from 'mongoose';
import type { PaymentStore } from '../data/payments';
import type { UserDirectory } from '../data/users';

/**
 * An admin's withdrawal is debited by the wallet first and recorded here right after; if
 * this service stopped in between, the wallet's event records it now (once: the payment's
 * id is the wallet's key).
 */
export const onWalletDebited =
  (payments: PaymentStore, users: UserDirectory) => async (event: EventEnvelope<'wallet.debited'>) => {
    const match = /^payment:([a-f0-9]{24})$/.exec(event.data.key);
    if (!match?.[1]) return;
    const user = await users.find(event.data.userId);
    await payments.recordConfirmed({
      _id: new Types.ObjectId(match[1]),
      userId: event.data.userId,
      username: user?.username ?? '',
      productName: event.data.productName || 'Payment',
      amount: event.data.amount,
      amountToSend: null,
      type: 'OUT',
      asDebt: false,
      receipt: null,
      createdBy: 'wallet',
      status: 'confirmed',
    });
  };
