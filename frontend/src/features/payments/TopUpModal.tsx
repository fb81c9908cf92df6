import { useState } from 'react';
import { toast } from '../../lib/toast';
import { z } from 'zod';
import { CopyButton } from '../../components/CopyButton';
import { Field, TextField } from '../../components/Field';
import { ImageInput } from '../../components/ImageInput';
import { Modal } from '../../components/Modal';
import { errorText } from '../../lib/errors';
import { useZodForm, warnFirst } from '../../lib/forms';
import { newKey } from '../../lib/ids';
import { useSubmitTopUpMutation, type PaymentMethod } from './api';

const CLOSE_AFTER_MS = 1000;
const ATTACH_RECEIPT = 'Please attach a screenshot of the transfer.';

const amountSchema = z.object({
  amount: z
    .string()
    .trim()
    .min(1, 'Set an amount, please.')
    .refine((v) => Number(v) > 0, 'Please enter a valid amount (greater than 0).'),
});

interface TopUpModalProps {
  method: PaymentMethod | null;
  user: { id: string; username: string } | null;
  onClose: () => void;
}

/** Add Credit with one method: where to send, how much, and the transfer's screenshot. */
export function TopUpModal({ method, user, onClose }: TopUpModalProps) {
  const [submitTopUp] = useSubmitTopUpMutation();
  const [receipt, setReceipt] = useState<File | null>(null);
  const [receiptMissing, setReceiptMissing] = useState(false);
  const [done, setDone] = useState(false);
  // One key per opened modal, sent on each of its submits: a double click or a retry makes one payment.
  const [idempotencyKey, setIdempotencyKey] = useState(newKey);
  const form = useZodForm(amountSchema, { amount: '' });
  const amount = Number(form.watch('amount')) || 0;
  const busy = form.formState.isSubmitting;
  if (!method) return null;

  const close = () => {
    form.reset();
    setReceipt(null);
    setReceiptMissing(false);
    setDone(false);
    setIdempotencyKey(newKey());
    onClose();
  };

  const submit = form.handleSubmit(async (values) => {
    if (!user?.id || !user.username) return void toast.error('User ID is missing.');
    if (!receipt) {
      setReceiptMissing(true);
      return void toast.warning(ATTACH_RECEIPT);
    }
    const body = new FormData();
    body.append('product_name', method.name);
    body.append('amount', values.amount);
    body.append('type', 'IN');
    body.append('user_id', user.id);
    body.append('username', user.username);
    body.append('status', 'waiting');
    body.append('image', receipt);
    const answer = await submitTopUp({ form: body, idempotencyKey });
    if ('error' in answer) {
      toast.error(
        errorText(answer.error, { failed: 'Failed to submit payment.', unexpected: 'An error occurred.' }),
      );
      return;
    }
    setDone(true);
    toast.success('Payment submitted successfully!');
    setTimeout(close, CLOSE_AFTER_MS);
  }, warnFirst);

  return (
    <Modal open title={method.name} onClose={close}>
      <form className="top-up" onSubmit={submit} noValidate>
        <h2>{method.name}</h2>
        {method.destinations.map((d) => (
          <Field key={d.label} label={d.label}>
            {(control) => (
              <span className="copy-field">
                <input {...control} readOnly value={d.value} onFocus={(e) => e.currentTarget.select()} />
                <CopyButton text={d.value} what={d.label} />
              </span>
            )}
          </Field>
        ))}
        <p className="note" lang="ar" dir="rtl">
          يرجى إرفاق صورة عن التحويل تظهر المبلغ ووقت التحويل
        </p>
        <fieldset disabled={busy || done}>
          <TextField label="Amount ($)" inputMode="decimal" {...form.field('amount')} />
          <p>
            Amount to send:{' '}
            <strong data-testid="amount-to-send">{((amount * method.sharePercent) / 100).toFixed(2)}$</strong>
          </p>
          <ImageInput
            label="Transfer screenshot"
            error={receiptMissing && !receipt ? ATTACH_RECEIPT : undefined}
            onChoose={setReceipt}
          />
          <div className="modal__actions">
            <button type="button" className="button button--ghost" onClick={close}>
              Cancel
            </button>
            <button type="submit" className="button">
              {busy ? 'Submitting...' : 'Submit'}
            </button>
          </div>
        </fieldset>
      </form>
    </Modal>
  );
}
