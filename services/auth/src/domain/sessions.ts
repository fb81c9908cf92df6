import type { AuthDeps } from '../deps';
import { userSessionsEnded } from '../events/published';

/**
 * Ends every session of the user signed until now (logout, a password reset, a deletion; see
 * SessionEnds in the kit). The end is announced by an event inserted into the outbox first, so
 * every service learns it even if this process dies next; then it is recorded in Redis, where
 * every service reads it on the next request. With Redis away the services learn it from the event.
 */
export async function endSessions(deps: AuthDeps, userId: string): Promise<void> {
  const at = Date.now();
  await deps.outbox.add(userSessionsEnded(userId, at));
  await deps.sessions.end(userId, at).catch((err: unknown) => {
    deps.logger.warn(
      { err, userId },
      'a session end is not in Redis yet; the services learn it from its event',
    );
  });
}
