import { useState } from 'react';
import { toast } from '../../lib/toast';
import { errorText, httpStatus } from '../../lib/errors';
import type { Order } from '../ordering/api';
import { DecisionButtons, type Decision } from './DecisionButtons';
import { useDecideStuckOrderMutation } from './disputesApi';
import { useActionKey } from './useActionKey';

/**
 * Accept (with the reply the customer reads, such as a code) or reject (refund) an order the
 * supplier has kept waiting; the server asks the supplier one last time first, and its answer wins.
 */
export function StuckOrderDecision({ order }: { order: Order }) {
  const [decide, { isLoading }] = useDecideStuckOrderMutation();
  const [replay, setReplay] = useState('');
  const keys = useActionKey();
  const act = async (action: Decision) => {
    const text = replay.trim();
    const answer = await decide({
      orderId: order.id,
      action,
      ...(text && { replay: text }),
      idempotencyKey: keys.keyFor(`${action}:${text}`),
    });
    if ('error' in answer) {
      if ((httpStatus(answer.error) ?? 500) < 500) keys.refused();
      toast.error(errorText(answer.error, { failed: 'Failed to update order status.' }));
      return;
    }
    toast.success(answer.data.message);
  };
  return (
    <div className="decision">
      <label>
        Reply to the customer (optional, e.g. the code)
        <textarea rows={2} value={replay} onChange={(e) => setReplay(e.target.value)} />
      </label>
      <DecisionButtons confirmLabel="Accept" busy={isLoading} onDecide={(action) => void act(action)} />
    </div>
  );
}
