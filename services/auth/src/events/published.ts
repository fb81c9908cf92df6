import { createEvent, type Role } from '@raseed/kit';

/** The events auth publishes (schemas in services/kit/src/events.ts), keyed by the user's id. */
const SOURCE = 'auth';

export const userRegistered = (user: {
  id: string;
  username: string;
  email: string;
  phone: string;
  role: Role;
  createdAt: Date;
}) =>
  createEvent(SOURCE, 'user.registered', user.id, {
    userId: user.id,
    username: user.username,
    email: user.email,
    phone: user.phone,
    role: user.role,
    createdAt: user.createdAt.toISOString(),
  });

export const userDeleted = (userId: string) => createEvent(SOURCE, 'user.deleted', userId, { userId });

export const userDiscountChanged = (userId: string, percentage: number | null, setAt: Date) =>
  createEvent(SOURCE, 'user.discount-changed', userId, { userId, percentage, setAt: setAt.toISOString() });

export const userSessionsEnded = (userId: string, at: number) =>
  createEvent(SOURCE, 'user.sessions-ended', userId, { userId, at });
