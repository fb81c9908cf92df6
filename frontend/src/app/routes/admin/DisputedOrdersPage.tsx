import { ListPage } from '../../../components/ListPage';
import { ADMIN_POLL_MS } from '../../../features/admin/api';
import { DisputeActions } from '../../../features/admin/DisputeActions';
import { useDisputedOrdersQuery, useStuckOrdersQuery } from '../../../features/admin/disputesApi';
import { StuckOrderDecision } from '../../../features/admin/StuckOrderDecision';
import { OrderRow } from '../../../features/ordering/OrderRow';
import { useListFilter } from '../../../lib/useListFilter';
import { useTitle } from '../../../lib/useTitle';

function DisputedOrders() {
  const filter = useListFilter({ everyDate: true });
  const orders = useDisputedOrdersQuery(
    { page: filter.page, ...filter.range },
    { pollingInterval: ADMIN_POLL_MS },
  );
  return (
    <ListPage
      title="Disputed Orders"
      heading="h2"
      query={orders}
      items={orders.data?.orders}
      failed="Failed to fetch orders."
      empty="No disputed orders found."
      filter={filter}
    >
      {(order) => (
        <OrderRow key={order.id} order={order} staff open>
          <DisputeActions order={order} />
        </OrderRow>
      )}
    </ListPage>
  );
}

function StuckOrders() {
  const filter = useListFilter({ everyDate: true });
  const orders = useStuckOrdersQuery(
    { page: filter.page, ...filter.range },
    { pollingInterval: ADMIN_POLL_MS },
  );
  return (
    <ListPage
      title="Stuck Orders"
      heading="h2"
      query={orders}
      items={orders.data?.orders}
      failed="Failed to fetch orders."
      empty="No stuck orders found."
      filter={filter}
    >
      {(order) => (
        <OrderRow key={order.id} order={order} staff open>
          <StuckOrderDecision order={order} />
        </OrderRow>
      )}
    </ListPage>
  );
}

/**
 * Supplier orders that need a person: those the supplier contradicted after we decided them
 * (disputed), and those it has kept waiting too long (stuck).
 */
export function DisputedOrdersPage() {
  useTitle('Disputed & Stuck Orders');
  return (
    <>
      <h1>Disputed &amp; Stuck Orders</h1>
      <DisputedOrders />
      <StuckOrders />
    </>
  );
}
