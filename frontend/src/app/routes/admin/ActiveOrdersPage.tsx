import { useState } from 'react';
import { toast } from '../../../lib/toast';
import { ListPage } from '../../../components/ListPage';
import { DecisionButtons, type Decision } from '../../../features/admin/DecisionButtons';
import { useDecideOrderMutation, useOrdersQuery } from '../../../features/admin/api';
import { OrderRow } from '../../../features/ordering/OrderRow';
import type { Order } from '../../../features/ordering/api';
import { errorText } from '../../../lib/errors';
import { useListFilter } from '../../../lib/useListFilter';
import { useTitle } from '../../../lib/useTitle';
import { useFallbackPolling } from '../../../features/live/live';

/** Accept (with an optional reply the customer reads) or reject an order fulfilled by hand. */
function OrderDecision({ order }: { order: Order }) {
  const [decide, { isLoading }] = useDecideOrderMutation();
  const [replay, setReplay] = useState('');
  const act = async (action: Decision) => {
    const answer = await decide({
      orderId: order.id,
      action,
      ...(replay.trim() && { replay: replay.trim() }),
    });
    if ('error' in answer) {
      toast.error(errorText(answer.error, { failed: 'Failed to update order status.' }));
      return;
    }
    toast.success(action === 'confirmed' ? 'Order has been accepted.' : 'Order has been rejected.');
  };
  return (
    <div className="decision">
      <label>
        Reply to the customer (optional)
        <textarea rows={2} value={replay} onChange={(e) => setReplay(e.target.value)} />
      </label>
      <DecisionButtons confirmLabel="Accept" busy={isLoading} onDecide={(action) => void act(action)} />
    </div>
  );
}

export function ActiveOrdersPage() {
  useTitle('Active Orders');
  const filter = useListFilter({ everyDate: true });
  const pollingInterval = useFallbackPolling();
  const orders = useOrdersQuery(
    { page: filter.page, status: 'waiting', ...filter.range },
    { pollingInterval },
  );
  return (
    <ListPage
      title="Active Orders"
      query={orders}
      items={orders.data?.orders}
      failed="Failed to fetch orders."
      empty="No active orders found."
      filter={filter}
    >
      {(order) => (
        <OrderRow key={order.id} order={order} staff open>
          {/* A supplier's order is decided by the supplier, never by hand. */}
          {!order.order_id && order.product_id?.startsWith('c') && <OrderDecision order={order} />}
        </OrderRow>
      )}
    </ListPage>
  );
}
