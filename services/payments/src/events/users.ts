import type { EventEnvelope } from '@raseed/kit';
import type { UserDirectory } from '../data/users';

export const onUserRegistered = (users: UserDirectory) => async (event: EventEnvelope<'user.registered'>) => {
  await users.add({ id: event.data.userId, username: event.data.username, role: event.data.role });
};

export const onUserDeleted = (users: UserDirectory) => async (event: EventEnvelope<'user.deleted'>) => {
  await users.remove(event.data.userId);
};
