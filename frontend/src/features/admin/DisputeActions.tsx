import { toast } from '../../lib/toast';
import { errorText, httpStatus } from '../../lib/errors';
import { useResolveDisputeMutation, type DisputeAction, type DisputedOrder } from './disputesApi';
import { useActionKey } from './useActionKey';

const explained: Record<DisputedOrder['dispute']['kind'], string> = {
  'completed-after-refund':
    'The supplier completed this order after it had been refunded to the customer. Deliver the code (the customer is charged again, if the balance allows) or write the cost off.',
  'rejected-after-ok':
    'The supplier rejected this order after completing it. Refund the customer or write the cost off.',
};

const labels: Record<DisputeAction, string> = {
  deliver: 'Deliver the code',
  refund: 'Refund',
  'write-off': 'Write off',
};

/** What the supplier said, and the resolutions an admin may take once. */
export function DisputeActions({ order }: { order: DisputedOrder }) {
  const [resolve, { isLoading }] = useResolveDisputeMutation();
  const keys = useActionKey();
  const { dispute } = order;
  const act = async (action: DisputeAction) => {
    const answer = await resolve({ orderId: order.id, action, idempotencyKey: keys.keyFor(action) });
    if ('error' in answer) {
      if ((httpStatus(answer.error) ?? 500) < 500) keys.refused();
      toast.error(errorText(answer.error, { failed: 'Failed to resolve the dispute.' }));
      return;
    }
    toast.success(answer.data.message);
  };
  return (
    <div className="decision">
      <p className="note">{explained[dispute.kind]}</p>
      <p>
        Supplier order: {dispute.supplier_order_id}
        {dispute.supplier_reply && (
          <>
            {' · '}The supplier&apos;s reply: <span dir="auto">{dispute.supplier_reply}</span>
          </>
        )}
      </p>
      <div className="modal__actions">
        {dispute.actions.map((action) => (
          <button
            key={action}
            type="button"
            className={action === 'write-off' ? 'button button--danger' : 'button'}
            disabled={isLoading}
            onClick={() => void act(action)}
          >
            {labels[action]}
          </button>
        ))}
      </div>
    </div>
  );
}
