import { Expandable, StatusBadge } from '../../components/Expandable';
import { ListPage } from '../../components/ListPage';
import { Picture } from '../../components/Picture';
import { useSession } from '../../features/auth/session';
import { useMyPaymentsQuery } from '../../features/payments/api';
import { displayTime, dollars } from '../../lib/format';
import { useListFilter } from '../../lib/useListFilter';

export function MyPaymentsPage() {
  const { user } = useSession();
  const filter = useListFilter();
  const payments = useMyPaymentsQuery({
    userId: user?.id ?? '',
    page: filter.page,
    from: filter.from,
    to: filter.to,
  });
  return (
    <ListPage
      title="My Payments"
      result={{
        isLoading: payments.isLoading,
        isError: payments.isError,
        error: payments.error,
        items: payments.data?.payments ?? [],
        totalPages: payments.data?.totalPages ?? 1,
      }}
      failed="Failed to fetch payments."
      empty="No payments found."
      filter={filter}
    >
      {(payment) => (
        <Expandable
          key={payment.id}
          summary={
            <span className="row__fields">
              <span className="row__name">{payment.product_name}</span>
              <span>{dollars(payment.amount)}</span>
              <span>{payment.username}</span>
              <StatusBadge status={payment.status} />
              <time dateTime={payment.created_at}>{displayTime(payment.created_at)}</time>
            </span>
          }
        >
          <dl className="params">
            <div>
              <dt>Status</dt>
              <dd>{payment.status}</dd>
            </div>
            <div>
              <dt>Date</dt>
              <dd>{displayTime(payment.created_at)}</dd>
            </div>
            <div>
              <dt>Amount</dt>
              <dd>{dollars(payment.amount)}</dd>
            </div>
            <div>
              <dt>User id</dt>
              <dd>{payment.user_id}</dd>
            </div>
            <div>
              <dt>Service</dt>
              <dd>{payment.product_name}</dd>
            </div>
          </dl>
          {payment.image_path && (
            <Picture className="receipt" src={payment.image_path} alt="Transfer screenshot" />
          )}
        </Expandable>
      )}
    </ListPage>
  );
}
