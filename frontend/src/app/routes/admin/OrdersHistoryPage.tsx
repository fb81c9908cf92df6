import { ListPage } from '../../../components/ListPage';
import { useOrdersQuery } from '../../../features/admin/api';
import { OrderRow } from '../../../features/admin/OrderRow';
import { useListFilter } from '../../../lib/useListFilter';

export function OrdersHistoryPage() {
  const filter = useListFilter();
  const orders = useOrdersQuery({ page: filter.page, ...filter.range });
  return (
    <ListPage
      title="Orders History"
      result={{
        isLoading: orders.isLoading,
        isError: orders.isError,
        error: orders.error,
        items: orders.data?.orders ?? [],
        totalPages: orders.data?.totalPages ?? 1,
      }}
      failed="Failed to fetch orders."
      empty="No orders found."
      filter={filter}
    >
      {(order) => <OrderRow key={order.id} order={order} />}
    </ListPage>
  );
}
