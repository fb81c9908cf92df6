import { useRef } from 'react';
import { newKey } from '../../lib/ids';

/**
 * One Idempotency-Key per action an admin takes on a row: a retry of the same action (a double
 * click, a dropped answer) reuses it, so it acts once; another action, or the same one after a
 * refusal, is a new request with a new key.
 */
export function useActionKey() {
  const last = useRef<{ action: string; key: string } | null>(null);
  return {
    keyFor(action: string): string {
      if (last.current?.action !== action) last.current = { action, key: newKey() };
      return last.current.key;
    },
    /** The request was answered with a refusal: the next try is a new request. */
    refused() {
      last.current = null;
    },
  };
}
