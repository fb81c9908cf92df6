import type { EventEnvelope } from '@raseed/kit';
import type { DeletedUsers } from '../data/users';

export const onUserDeleted = (deleted: DeletedUsers) => async (event: EventEnvelope<'user.deleted'>) => {
  await deleted.add(event.data.userId);
};
