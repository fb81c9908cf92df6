import { conflict, isDuplicateKey, type Role } from '@raseed/kit';
import type { UserStore } from '../data/users';
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
