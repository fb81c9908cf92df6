import { Expandable, StatusBadge } from '../../components/Expandable';
import { ListPage } from '../../components/ListPage';
import { Params } from '../../components/Params';
import { useSession } from '../../features/auth/session';
import { useMyOrdersQuery } from '../../features/ordering/api';
import { displayTime, dollars } from '../../lib/format';
import { useListFilter } from '../../lib/useListFilter';

export function MyOrdersPage() {
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
      result={{
        isLoading: orders.isLoading,
        isError: orders.isError,
        error: orders.error,
        items: orders.data?.orders ?? [],
        totalPages: orders.data?.totalPages ?? 1,
      }}
      failed="Failed to fetch orders. Please try again."
      empty="No orders found."
      filter={filter}
    >
      {(order) => (
        <Expandable
          key={order.id}
          summary={
            <span className="row__fields">
              <span className="row__id">#{order.id.slice(-8)}</span>
              <StatusBadge status={order.status} />
              <span className="row__name" dir="auto">
                {order.product_name}
              </span>
              <span>{order.username}</span>
              <span>{dollars(order.total_price)}</span>
              <span>× {order.quantity}</span>
              <time dateTime={order.created_at}>{displayTime(order.created_at)}</time>
            </span>
          }
        >
          <p>Order id: {order.id}</p>
          <h3>Additional Information</h3>
          <Params params={order.params} />
          {order.replay_api && (
            <p className="reply">
              Reply: <span dir="auto">{order.replay_api}</span>
            </p>
          )}
        </Expandable>
      )}
    </ListPage>
  );
}
