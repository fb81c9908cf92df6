import { ListPage } from '../../../components/ListPage';
import { useOrdersQuery } from '../../../features/admin/api';
import { OrderRow } from '../../../features/ordering/OrderRow';
import { useListFilter } from '../../../lib/useListFilter';
import { useTitle } from '../../../lib/useTitle';

export function OrdersHistoryPage() {
  useTitle('Orders History');
  const filter = useListFilter();
  const orders = useOrdersQuery({ page: filter.page, ...filter.range });
  return (
    <ListPage
      title="Orders History"
      query={orders}
      items={orders.data?.orders}
      failed="Failed to fetch orders."
      empty="No orders found."
      filter={filter}
    >
      {(order) => <OrderRow key={order.id} order={order} staff />}
    </ListPage>
  );
}
