import { useId, useState, type ReactNode } from 'react';
import { toast } from '../../lib/toast';
import { z } from 'zod';
import { TextField } from '../../components/Field';
import { Modal } from '../../components/Modal';
import { RetryButton } from '../../components/RetryButton';
import { Spinner } from '../../components/Spinner';
import { errorText, httpStatus } from '../../lib/errors';
import { dollars } from '../../lib/format';
import { useZodForm, warnFirst } from '../../lib/forms';
import { newKey } from '../../lib/ids';
import {
  useAdminPaymentMutation,
  useDebtPaymentMutation,
  useEditDebtMutation,
  useSetDiscountMutation,
  useUserBalanceQuery,
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

/** A figure of the user's wallet as the modal last asked for it. */
interface Figure {
  value: number | undefined;
  failed: boolean;
}

const figure = ({ value, failed }: Figure) =>
  value !== undefined ? dollars(value) : failed ? 'unavailable' : '…';

/**
 * One action on a user's account. The money actions show the wallet's balance and debt as they
 * are when the modal opens; Change Debt starts from that debt, and again after it changes (a
 * refused change refreshes it).
 */
export function UserActionModal({ user, action, onClose }: UserActionModalProps) {
  const money = action !== 'discount';
  const asked = { skip: !money, refetchOnMountOrArgChange: true };
  const balance = useUserBalanceQuery(user.id, asked);
  const debt = useUserDebtQuery(user.id, asked);
  if (action === 'editDebt' && debt.isFetching) {
    return (
      <Modal open title={TITLES[action]} onClose={onClose}>
        <Spinner />
      </Modal>
    );
  }
  const shownDebt = debt.data?.debt ?? user.debt;
  const wallet = money && (
    <p data-testid="user-wallet">
      Balance: <strong>{figure({ value: balance.data?.balance, failed: balance.isError })}</strong> · Debt:{' '}
      <strong>{figure({ value: debt.data?.debt, failed: debt.isError })}</strong>
      {(balance.isError || debt.isError) && (
        <>
          {' '}
          <RetryButton
            what="loading the wallet"
            onRetry={() => {
              if (balance.isError) void balance.refetch();
              if (debt.isError) void debt.refetch();
            }}
          />
        </>
      )}
    </p>
  );
  return (
    <ActionForm
      key={action === 'editDebt' ? shownDebt : undefined}
      user={{ ...user, debt: shownDebt }}
      action={action}
      wallet={wallet}
      onClose={onClose}
    />
  );
}

/**
 * An amount (or a percentage) checked, then sent once. A withdrawal is asked about first,
 * with its amount, before it is sent.
 */
function ActionForm({ user, action, wallet, onClose }: UserActionModalProps & { wallet: ReactNode }) {
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
  // The withdrawal's amount while the admin is asked to confirm it.
  const [confirming, setConfirming] = useState<number | null>(null);
  const questionId = useId();

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

  const submit = form.handleSubmit(({ value }) => {
    const amount = Number(value);
    if (action === 'withdraw' && confirming === null) return setConfirming(amount);
    return run(amount);
  }, warnFirst);

  return (
    <Modal open title={TITLES[action]} onClose={onClose}>
      <form onSubmit={submit} noValidate>
        <h2>{TITLES[action]}</h2>
        <p>
          {user.username} · {user.email}
        </p>
        {wallet}
        <fieldset disabled={busy}>
          {confirming === null ? (
            <>
              <TextField
                label={
                  action === 'discount'
                    ? 'Discount percentage'
                    : action === 'editDebt'
                      ? 'New debt ($)'
                      : 'Amount ($)'
                }
                type="number"
                inputMode="decimal"
                min={action === 'discount' ? 1 : 0}
                step={action === 'discount' ? 0.1 : 0.01}
                {...form.field('value')}
              />
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
            </>
          ) : (
            <>
              <p id={questionId} className="confirm-question">
                Withdraw {dollars(confirming)} from {user.username}?
              </p>
              <div className="modal__actions">
                <button type="button" className="button button--ghost" onClick={() => setConfirming(null)}>
                  Back
                </button>
                <button
                  type="submit"
                  className="button button--danger"
                  aria-describedby={questionId}
                  autoFocus
                >
                  {busy ? 'Withdrawing...' : 'Confirm'}
                </button>
              </div>
            </>
          )}
        </fieldset>
      </form>
    </Modal>
  );
}
