import { ListPage } from '../../components/ListPage';
import { useSession } from '../../features/auth/session';
import { useMyPaymentsQuery } from '../../features/payments/api';
import { PaymentRow } from '../../features/payments/PaymentRow';
import { useListFilter } from '../../lib/useListFilter';
import { useTitle } from '../../lib/useTitle';

export function MyPaymentsPage() {
  useTitle('My Payments');
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
      query={payments}
      items={payments.data?.payments}
      failed="Failed to fetch payments."
      empty="No payments found."
      filter={filter}
    >
      {(payment) => <PaymentRow key={payment.id} payment={payment} />}
    </ListPage>
  );
}
