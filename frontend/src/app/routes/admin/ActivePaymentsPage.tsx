import { toast } from 'react-toastify';
import { ListPage } from '../../../components/ListPage';
import {
  ADMIN_POLL_MS,
  useDecidePaymentMutation,
  useWaitingPaymentsQuery,
} from '../../../features/admin/api';
import { PaymentRow } from '../../../features/admin/PaymentRow';
import type { Payment } from '../../../features/payments/api';
import { errorText, httpStatus } from '../../../lib/errors';
import { useListFilter } from '../../../lib/useListFilter';

function Decision({ payment }: { payment: Payment }) {
  const [decide, { isLoading }] = useDecidePaymentMutation();
  const act = async (action: 'confirmed' | 'rejected') => {
    const answer = await decide({ id: payment.id, action });
    if ('error' in answer) {
      toast.error(errorText(answer.error, { failed: 'Failed to update payment status.' }));
      return;
    }
    const show = answer.data.color === 'warning' ? toast.warning : toast.success;
    show(answer.data.message);
  };
  return (
    <div className="modal__actions">
      <button type="button" className="button" disabled={isLoading} onClick={() => act('confirmed')}>
        Confirm
      </button>
      <button
        type="button"
        className="button button--danger"
        disabled={isLoading}
        onClick={() => act('rejected')}
      >
        Reject
      </button>
    </div>
  );
}

export function ActivePaymentsPage() {
  const filter = useListFilter({ everyDate: true });
  const payments = useWaitingPaymentsQuery(
    { page: filter.page, ...filter.range },
    { pollingInterval: ADMIN_POLL_MS },
  );
  // A 404 means nothing is waiting (spec §8).
  const empty = httpStatus(payments.error) === 404;
  return (
    <ListPage
      title="Active Payments"
      result={{
        isLoading: payments.isLoading,
        isError: payments.isError && !empty,
        error: payments.error,
        items: payments.data?.payments ?? [],
        totalPages: payments.data?.totalPages ?? 1,
      }}
      failed="Failed to fetch payments."
      empty="No Active payments found."
      filter={filter}
    >
      {(payment) => (
        <PaymentRow key={payment.id} payment={payment}>
          <Decision payment={payment} />
        </PaymentRow>
      )}
    </ListPage>
  );
}
