import { createHash, randomBytes } from 'node:crypto';
import bcrypt from 'bcrypt';

/**
 * bcrypt's native binding: a hash runs on libuv's thread pool, so sign-ins and sign-ups never
 * hold the event loop the service's other requests are answered on, and several run at once.
 */
export function passwordHasher(cost: number) {
  // Checked when the e-mail is unknown, so a miss takes as long as a wrong password.
  const decoy = bcrypt.hash('raseed-decoy-password', cost);
  return {
    hash: (password: string) => bcrypt.hash(password, cost),
    async verify(hash: string | undefined, password: string): Promise<boolean> {
      if (!hash) {
        await bcrypt.compare(password, await decoy);
        return false;
      }
      return bcrypt.compare(password, hash);
    },
  };
}

export type PasswordHasher = ReturnType<typeof passwordHasher>;

/** A reset token is sent once by e-mail; only its hash is stored. */
export function newResetToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashResetToken(token) };
}

export const hashResetToken = (token: string) => createHash('sha256').update(token).digest('hex');
