import { conflict, HttpError, isDuplicateKey, type Role } from '@raseed/kit';
import type { UserStore } from '../data/users';
import type { AuthDeps } from '../deps';
import { endSessions } from './sessions';
import type { PasswordHasher } from './passwords';
import type { AccountInput } from './rules';

/** Registers an account; a taken e-mail or username answers 409 with the field that clashed. */
export async function registerAccount(
  users: UserStore,
  passwords: PasswordHasher,
  input: AccountInput,
  role: Role,
  fields: Record<string, unknown>,
): Promise<string> {
  const passwordHash = await passwords.hash(input.password);
  try {
    return await users.register({
      username: input.username,
      email: input.email,
      phone: input.phone,
      passwordHash,
      role,
    });
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
    // Not every compatible store names the clashing index, so look the e-mail up.
    const emailTaken = (await users.findByEmail(input.email)) !== null;
    throw conflict(
      emailTaken ? 'This email is already registered' : 'This username is already taken',
      fields,
    );
  }
}

/** Creates the first admin from the configured credentials when the store has none. */
export async function ensureFirstAdmin(
  users: UserStore,
  passwords: PasswordHasher,
  admin: { email: string; username: string; password: string },
): Promise<boolean> {
  if (await users.hasAdmin()) return false;
  try {
    await users.register({
      username: admin.username,
      email: admin.email.toLowerCase(),
      phone: '',
      passwordHash: await passwords.hash(admin.password),
      role: 'admin',
    });
    return true;
  } catch (err) {
    // Another replica created it first.
    if (isDuplicateKey(err)) return false;
    throw err;
  }
}

/**
 * Deletes an account and ends its sessions first. An admin's deletion is decided against the
 * admins there are (UserStore.decideAdminRemoval): when two admins delete each other at once,
 * the one decided first is deleted (finished here if its request was cut off), and the other
 * request decides again among the admins left, where the last one stays. Answers whether `id`
 * was deleted; throws 409 for the last admin.
 */
export async function deleteAccount(deps: AuthDeps, id: string, role: Role): Promise<boolean> {
  const { users } = deps;
  if (role !== 'admin') {
    await endSessions(deps, id);
    return users.delete(id);
  }
  for (let round = 0; round < 5; round++) {
    const admins = await users.adminIds();
    if (!admins.includes(id)) return false;
    if (admins.length <= 1) throw conflict('The last admin account cannot be deleted');
    const decided = await users.decideAdminRemoval(admins, id);
    await endSessions(deps, decided);
    await users.delete(decided);
    if (decided === id) return true;
  }
  throw new HttpError(503, 'The service is busy. Please try again.');
}
