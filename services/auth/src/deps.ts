import type { Limit, Logger, Outbox, SessionEnds } from '@raseed/kit';
import type { Queue } from 'bullmq';
import type { AuthConfig } from './config';
import type { FiguresStore } from './data/figures';
import type { ResetStore } from './data/resets';
import type { UserStore } from './data/users';
import type { PasswordHasher } from './domain/passwords';
import type { Email } from './jobs/email';

/** What the routes of the auth service work with. */
export interface AuthDeps {
  config: AuthConfig;
  users: UserStore;
  figures: FiguresStore;
  resets: ResetStore;
  passwords: PasswordHasher;
  emails: Queue<Email>;
  logger: Logger;
  outbox: Outbox;
  /** Where ended sessions are recorded for every service (see domain/sessions.ts). */
  sessions: SessionEnds;
  limits: {
    /** Failed sign-ins per account (its e-mail), whatever the address they come from. */
    signInFailures: Limit;
    /** Password-reset requests per e-mail. */
    resetRequests: Limit;
  };
}
