import { withTrace, type EventEnvelope } from '@raseed/kit';
import { lowStockEmail } from '../domain/notices';
import type { NoticeDeps } from './notices';

/**
 * A product's stock of codes runs low: every admin is e-mailed, each once per event (the job's
 * id is the event's and the admin's, so a redelivered event queues no second e-mail).
 */
export const onStockLow =
  (deps: NoticeDeps) =>
  async (event: EventEnvelope<'stock.low'>): Promise<void> => {
    const admins = await deps.users.admins();
    await deps.emails.addBulk(
      admins.map((admin) => ({
        name: 'stock-low',
        data: withTrace(lowStockEmail(deps.publicUrl, admin.email, event.data)),
        opts: { jobId: `stock-low-${event.id}-${admin.id}` },
      })),
    );
  };
