import { ListPage } from '../../../components/ListPage';
import { usePaymentsQuery } from '../../../features/admin/api';
import { PaymentRow } from '../../../features/payments/PaymentRow';
import { useListFilter } from '../../../lib/useListFilter';
import { useTitle } from '../../../lib/useTitle';

export function PaymentsHistoryPage() {
  useTitle('Payments History');
  const filter = useListFilter();
  const payments = usePaymentsQuery({ page: filter.page, ...filter.range });
  return (
    <ListPage
      title="Payments History"
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
