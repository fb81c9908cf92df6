import { useState } from 'react';
import { toast } from 'react-toastify';
import { z } from 'zod';
import { Modal } from '../../components/Modal';
import { Spinner } from '../../components/Spinner';
import { errorText, httpStatus } from '../../lib/errors';
import { useZodForm, warnFirst } from '../../lib/forms';
import { newKey } from '../../lib/ids';
import {
  useAdminPaymentMutation,
  useDebtPaymentMutation,
  useEditDebtMutation,
  useSetDiscountMutation,
  useUserDebtQuery,
  type AdminUser,
} from './api';

export type UserAction = 'credit' | 'withdraw' | 'debt' | 'editDebt' | 'discount';

const positive = (message: string) =>
  z.object({
    value: z
      .string()
      .trim()
      .refine((v) => v !== '' && Number(v) > 0, message),
  });
const priceSchema = positive('Please enter a valid price (greater than 0).');
const percentageSchema = positive('Please enter a valid percentage (greater than 0)');

const TITLES: Record<UserAction, string> = {
  credit: 'Add to wallet',
  withdraw: 'Withdraw from wallet',
  debt: 'Add credit as debt',
  editDebt: 'Change debt',
  discount: 'Discount',
};

interface UserActionModalProps {
  user: AdminUser;
  action: UserAction;
  onClose: () => void;
}

/**
 * One money action on a user's account. Change Debt starts from the wallet's debt as it is
 * when the modal opens, and again after it changes (a refused change refreshes it).
 */
export function UserActionModal({ user, action, onClose }: UserActionModalProps) {
  const wallet = useUserDebtQuery(user.id, { skip: action !== 'editDebt', refetchOnMountOrArgChange: true });
  if (action !== 'editDebt') return <ActionForm user={user} action={action} onClose={onClose} />;
  if (wallet.isFetching) {
    return (
      <Modal open title={TITLES[action]} onClose={onClose}>
        <Spinner />
      </Modal>
    );
  }
  const debt = wallet.data?.debt ?? user.debt;
  return <ActionForm key={debt} user={{ ...user, debt }} action={action} onClose={onClose} />;
}

/** An amount (or a percentage) checked, then sent once. */
function ActionForm({ user, action, onClose }: UserActionModalProps) {
  const [adminPayment] = useAdminPaymentMutation();
  const [debtPayment] = useDebtPaymentMutation();
  const [editDebt] = useEditDebtMutation();
  const [setDiscount] = useSetDiscountMutation();
  // One key per opened modal (it closes after success): a double click or a retry moves the money once.
  const [idempotencyKey, setIdempotencyKey] = useState(newKey);
  // The debt this modal showed, kept while it is open: a change landing meanwhile is refused, not erased.
  const [shownDebt] = useState(user.debt);
  const form = useZodForm(action === 'discount' ? percentageSchema : priceSchema, {
    value: action === 'editDebt' ? String(shownDebt) : '',
  });
  const busy = form.formState.isSubmitting;

  const run = async (value: number | null) => {
    const failed =
      action === 'editDebt'
        ? 'Failed to change the debt.'
        : action === 'discount'
          ? 'Failed to set discount percentage'
          : 'Failed to create the payment.';
    const answer =
      action === 'credit' || action === 'withdraw'
        ? await adminPayment({
            user_id: user.id,
            amount: value as number,
            type: action === 'credit' ? 'IN' : 'OUT',
            idempotencyKey,
          })
        : action === 'debt'
          ? await debtPayment({ user_id: user.id, amount: value as number, idempotencyKey })
          : action === 'editDebt'
            ? await editDebt({
                user_id: user.id,
                newdebt: value as number,
                expected_debt: shownDebt,
                idempotencyKey,
              })
            : await setDiscount({ user_id: user.id, percentage: value });
    if ('error' in answer) {
      // A payment refused for good (a balance too small) used its key up: the next try is a new request.
      const refused = (httpStatus(answer.error) ?? 500) < 500;
      if (refused && action !== 'editDebt') setIdempotencyKey(newKey());
      toast.error(errorText(answer.error, { failed }));
      return;
    }
    toast.success(
      action === 'withdraw'
        ? `$${value} withdrawn from wallet successfully.`
        : action === 'editDebt'
          ? 'debt has changed successfully.'
          : action === 'discount'
            ? value === null
              ? 'Discount removed successfully'
              : 'Discount percentage set successfully'
            : `$${value} added to wallet successfully.`,
    );
    onClose();
  };

  const submit = form.handleSubmit(({ value }) => run(Number(value)), warnFirst);

  return (
    <Modal open title={TITLES[action]} onClose={onClose}>
      <form onSubmit={submit} noValidate>
        <h2>{TITLES[action]}</h2>
        <p>
          {user.username} · {user.email}
        </p>
        <fieldset disabled={busy}>
          <label>
            {action === 'discount'
              ? 'Discount percentage'
              : action === 'editDebt'
                ? 'New debt ($)'
                : 'Amount ($)'}
            <input
              type="number"
              inputMode="decimal"
              min={action === 'discount' ? 1 : 0}
              step={action === 'discount' ? 0.1 : 0.01}
              {...form.register('value')}
            />
          </label>
          <div className="modal__actions">
            {action === 'discount' && user.percentage ? (
              <button type="button" className="button button--danger" onClick={() => run(null)}>
                Remove discount
              </button>
            ) : null}
            <button type="button" className="button button--ghost" onClick={onClose}>
              Cancel
            </button>
            <button type="submit" className="button">
              {busy ? 'Saving...' : 'Save'}
            </button>
          </div>
        </fieldset>
      </form>
    </Modal>
  );
}
