import { ListPage } from '../../components/ListPage';
import { useSession } from '../../features/auth/session';
import { useMyOrdersQuery } from '../../features/ordering/api';
import { OrderRow } from '../../features/ordering/OrderRow';
import { useListFilter } from '../../lib/useListFilter';
import { useTitle } from '../../lib/useTitle';

export function MyOrdersPage() {
  useTitle('My Orders');
  const { user } = useSession();
  const filter = useListFilter();
  const orders = useMyOrdersQuery({
    userId: user?.id ?? '',
    page: filter.page,
    from: filter.from,
    to: filter.to,
  });
  return (
    <ListPage
      title="My Orders"
      query={orders}
      items={orders.data?.orders}
      failed="Failed to fetch orders. Please try again."
      empty="No orders found."
      filter={filter}
    >
      {(order) => <OrderRow key={order.id} order={order} />}
    </ListPage>
  );
}
