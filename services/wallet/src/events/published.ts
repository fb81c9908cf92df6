import { createEvent, type EventEnvelope } from '@raseed/kit';

/** The events a ledger entry announces (schemas in services/kit/src/events.ts), keyed by the user's id. */
const SOURCE = 'wallet';

/** What the events tell of a ledger entry (a stored LedgerEntry has all of it). */
interface EntryFacts {
  account: string;
  key: string;
  seq: number;
  kind: string;
  type?: 'IN' | 'OUT';
  amount: number;
  balance: number;
  debt: number;
  debtChange: number;
  productName: string;
}

export function entryEvents(entry: EntryFacts): EventEnvelope[] {
  // A void moves nothing, so there is nothing to announce (a movement event needs an amount).
  if (entry.kind === 'void') return [];
  const events: EventEnvelope[] = [];
  if (entry.kind === 'movement') {
    events.push(
      createEvent(SOURCE, entry.type === 'OUT' ? 'wallet.debited' : 'wallet.credited', entry.account, {
        userId: entry.account,
        key: entry.key,
        seq: entry.seq,
        amount: entry.amount,
        balance: entry.balance,
        debt: entry.debt,
        productName: entry.productName,
      }),
    );
  }
  if (entry.debtChange !== 0 || entry.kind === 'debt') {
    events.push(
      createEvent(SOURCE, 'wallet.debt-changed', entry.account, {
        userId: entry.account,
        key: entry.key,
        seq: entry.seq,
        debt: entry.debt,
      }),
    );
  }
  return events;
}
