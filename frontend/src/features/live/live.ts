import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import { useEffect } from 'react';
import { useDispatch, useSelector } from 'react-redux';
import { api } from '../../api/api';

type Tag = 'Wallet' | 'Orders' | 'Payments' | 'User';

/** What each change the stream names asks again (the gateway's LiveChange). */
const ASKED_AGAIN: Record<string, Tag[]> = {
  wallet: ['Wallet'],
  discount: ['User'],
  orders: ['Orders'],
  payments: ['Payments'],
  'waiting-orders': ['Orders'],
  'waiting-payments': ['Payments'],
};
const EVERYTHING: Tag[] = ['Wallet', 'Orders', 'Payments', 'User'];

/** While the stream is down, pages ask for their figures this often. */
export const FALLBACK_POLL_MS = 60_000;
/** After the gateway refused a stream (busy, signed out), the page tries again this much later. */
const REOPEN_MS = 30_000;
/** A busy store sends many changes a second: each figure is asked again at most this often. */
const ASK_EVERY_MS = 500;

export const live = createSlice({
  name: 'live',
  initialState: { connected: false },
  reducers: {
    liveChanged(state, action: PayloadAction<boolean>) {
      state.connected = action.payload;
    },
  },
});
const { liveChanged } = live.actions;

/** How often a page polls a figure the stream keeps up to date: never while the stream is open. */
export function useFallbackPolling(): number {
  const connected = useSelector((state: { live: { connected: boolean } }) => state.live.connected);
  return connected ? 0 : FALLBACK_POLL_MS;
}

/**
 * The signed-in tab's stream (GET /api/events): each change it hears asks the figures it names
 * again, at once and then at most every ASK_EVERY_MS. After the connection was lost, everything
 * is asked again, as the changes in between were not heard.
 */
export function useLiveUpdates(userId: string | undefined): void {
  const dispatch = useDispatch();
  useEffect(() => {
    if (!userId) return;
    let source: EventSource | undefined;
    let reopen: ReturnType<typeof setTimeout> | undefined;
    let quiet: ReturnType<typeof setTimeout> | undefined;
    let opened = false;
    const pending = new Set<Tag>();
    const ask = (tags: Tag[]) => {
      if (quiet) {
        for (const tag of tags) pending.add(tag);
        return;
      }
      dispatch(api.util.invalidateTags(tags));
      quiet = setTimeout(() => {
        quiet = undefined;
        if (pending.size === 0) return;
        const next = [...pending];
        pending.clear();
        ask(next);
      }, ASK_EVERY_MS);
    };
    const open = () => {
      const stream = new EventSource('/api/events');
      source = stream;
      stream.onopen = () => {
        dispatch(liveChanged(true));
        if (opened) ask(EVERYTHING);
        opened = true;
      };
      stream.onerror = () => {
        dispatch(liveChanged(false));
        // A refused stream is not tried again by the browser: it is, later.
        if (stream.readyState === EventSource.CLOSED) reopen = setTimeout(open, REOPEN_MS);
      };
      for (const [change, tags] of Object.entries(ASKED_AGAIN))
        stream.addEventListener(change, () => ask(tags));
    };
    open();
    return () => {
      source?.close();
      clearTimeout(reopen);
      clearTimeout(quiet);
      dispatch(liveChanged(false));
    };
  }, [userId, dispatch]);
}
