import { useState } from 'react';
import { toast } from 'react-toastify';
import { z } from 'zod';
import { Modal } from '../../components/Modal';
import { errorText } from '../../lib/errors';
import { useZodForm, warnFirst } from '../../lib/forms';
import { newKey } from '../../lib/ids';
import {
  useAdminPaymentMutation,
  useDebtPaymentMutation,
  useEditDebtMutation,
  useSetDiscountMutation,
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

/** One money action on a user's account: an amount (or a percentage) checked, then sent once. */
export function UserActionModal({ user, action, onClose }: UserActionModalProps) {
  const [adminPayment] = useAdminPaymentMutation();
  const [debtPayment] = useDebtPaymentMutation();
  const [editDebt] = useEditDebtMutation();
  const [setDiscount] = useSetDiscountMutation();
  // One key per opened modal (it closes after success): a double click or a retry moves the money once.
  const [idempotencyKey] = useState(newKey);
  const form = useZodForm(action === 'discount' ? percentageSchema : priceSchema, {
    value: action === 'editDebt' ? String(user.debt) : '',
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
            ? await editDebt({ user_id: user.id, newdebt: value as number, idempotencyKey })
            : await setDiscount({ user_id: user.id, percentage: value });
    if ('error' in answer) {
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
