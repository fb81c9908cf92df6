import type { EventEnvelope } from '@raseed/kit';
import type { Ledger } from '../data/ledger';

/** A new user gets an account at once (a late event is harmless: the first movement opens it too). */
export const onUserRegistered = (ledger: Ledger) => async (event: EventEnvelope<'user.registered'>) => {
  await ledger.open(event.data.userId);
};
