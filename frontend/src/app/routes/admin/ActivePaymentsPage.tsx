import { toast } from '../../../lib/toast';
import { ListPage } from '../../../components/ListPage';
import { DecisionButtons, type Decision } from '../../../features/admin/DecisionButtons';
import { useDecidePaymentMutation, useWaitingPaymentsQuery } from '../../../features/admin/api';
import { PaymentRow } from '../../../features/payments/PaymentRow';
import type { Payment } from '../../../features/payments/api';
import { errorText } from '../../../lib/errors';
import { useListFilter } from '../../../lib/useListFilter';
import { useTitle } from '../../../lib/useTitle';
import { useFallbackPolling } from '../../../features/live/live';

function PaymentDecision({ payment }: { payment: Payment }) {
  const [decide, { isLoading }] = useDecidePaymentMutation();
  const act = async (action: Decision) => {
    const answer = await decide({ id: payment.id, action });
    if ('error' in answer) {
      toast.error(errorText(answer.error, { failed: 'Failed to update payment status.' }));
      return;
    }
    const show = answer.data.color === 'warning' ? toast.warning : toast.success;
    show(answer.data.message);
  };
  return <DecisionButtons confirmLabel="Confirm" busy={isLoading} onDecide={(action) => void act(action)} />;
}

export function ActivePaymentsPage() {
  useTitle('Active Payments');
  const filter = useListFilter({ everyDate: true });
  const pollingInterval = useFallbackPolling();
  const payments = useWaitingPaymentsQuery({ page: filter.page, ...filter.range }, { pollingInterval });
  return (
    <ListPage
      title="Active Payments"
      query={payments}
      items={payments.data?.payments}
      notFoundIsEmpty
      failed="Failed to fetch payments."
      empty="No Active payments found."
      filter={filter}
    >
      {(payment) => (
        <PaymentRow key={payment.id} payment={payment}>
          <PaymentDecision payment={payment} />
        </PaymentRow>
      )}
    </ListPage>
  );
}
