import { useEffect, useRef, useState } from 'react';
import { toast } from '../../lib/toast';
import { TextField } from '../../components/Field';
import { Modal } from '../../components/Modal';
import { RetryButton } from '../../components/RetryButton';
import { Spinner } from '../../components/Spinner';
import { errorText, httpStatus } from '../../lib/errors';
import { dollars } from '../../lib/format';
import { newKey } from '../../lib/ids';
import type { Product } from '../catalog/api';
import { usePlaceOrderMutation } from './api';
import { QuantityStepper } from './QuantityStepper';

/** The wallet balance as the page asked for it. */
export interface WalletBalance {
  /** Undefined until it is known. */
  amount: number | undefined;
  /** The last ask failed: the modal offers to ask again. */
  failed: boolean;
  retry: () => void;
}

interface OrderModalProps {
  product: Product | null;
  balance: WalletBalance;
  onClose: () => void;
}

const QUANTITY_ERROR_MS = 2000;
const FOLLOW_UP_DELAY_MS = 5000;

/**
 * The order form of a product (spec §2 Category page, §4 Order modal, §5 Order). The page
 * keys it by product, so choosing another product starts a fresh form.
 */
export function OrderModal({ product, balance, onClose }: OrderModalProps) {
  const limits = product?.qty_values ?? null;
  const [quantity, setQuantity] = useState(limits?.min ?? 1);
  const [values, setValues] = useState<Record<string, string>>({});
  const [error, setError] = useState('');
  const [quantityError, setQuantityError] = useState('');
  // The params left blank at the last submission, each marked at its field until it is typed in.
  const [missing, setMissing] = useState<string[]>([]);
  // One key per submission: a double click or a retry after a lost answer never orders twice.
  const key = useRef(newKey());
  const [placeOrder, { isLoading: sending }] = usePlaceOrderMutation();

  useEffect(() => {
    if (!quantityError) return;
    const timer = setTimeout(() => setQuantityError(''), QUANTITY_ERROR_MS);
    return () => clearTimeout(timer);
  }, [quantityError]);

  if (!product) return null;
  const total = product.price * quantity;

  const send = async () => {
    if (sending) return;
    setError('');
    const params = product.params.map((label) => [label, (values[label] ?? '').trim()] as const);
    const blank = params.filter(([, value]) => !value).map(([label]) => label);
    setMissing(blank);
    if (blank.length) return setError('Please fill all required fields.');
    if (limits && (quantity < limits.min || quantity > limits.max)) {
      return setQuantityError(`Quantity must be between ${limits.min} and ${limits.max}`);
    }
    if (balance.amount === undefined) {
      if (balance.failed) balance.retry();
      return setError('Balance not loaded yet. Please wait.');
    }
    if (balance.amount < total) {
      return setError(`Insufficient balance. You have only ${dollars(balance.amount)} in your balance`);
    }
    const answer = await placeOrder({
      product_id: product.id,
      quantity,
      ...(params.length && { params: params.map(([label, value]) => `${label}:${value}`).join(',') }),
      idempotencyKey: key.current,
    });
    if ('error' in answer) {
      const status = httpStatus(answer.error);
      // Refused for good: the next submission is a new order. Otherwise a retry keeps the key.
      if (status !== undefined && status < 500) key.current = newKey();
      const text = errorText(answer.error, {
        failed: 'An error occurred while placing your order',
        unreachable: 'Unable to reach the server. Please try again later.',
      });
      setError(text);
      toast.error(text);
      return;
    }
    key.current = newKey();
    toast.success(answer.data.message || 'Order placed successfully!');
    setTimeout(
      () =>
        toast.info('Please check your Orders history to find the required information', {
          autoClose: FOLLOW_UP_DELAY_MS,
        }),
      FOLLOW_UP_DELAY_MS,
    );
    onClose();
  };

  return (
    <Modal open title={product.name} onClose={onClose}>
      <form
        className="order"
        onSubmit={(event) => {
          event.preventDefault();
          void send();
        }}
      >
        <h2 className="order__name">{product.name}</h2>
        {product.params.map((label) => (
          <TextField
            key={label}
            label={label}
            placeholder={`Enter ${label}`}
            value={values[label] ?? ''}
            error={missing.includes(label) ? `${label} is required.` : undefined}
            onChange={(e) => {
              setValues({ ...values, [label]: e.target.value });
              setMissing(missing.filter((m) => m !== label));
            }}
          />
        ))}
        {limits && (
          <QuantityStepper
            value={quantity}
            min={limits.min}
            max={limits.max}
            onChange={setQuantity}
            onOutOfRange={() => setQuantityError(`Quantity must be between ${limits.min} and ${limits.max}`)}
            error={quantityError}
          />
        )}
        <p className="order__total">
          Total: <strong>{dollars(total)}</strong>
        </p>
        <p className="order__balance">
          Your Balance:{' '}
          {balance.amount !== undefined ? (
            <strong>{dollars(balance.amount)}</strong>
          ) : balance.failed ? (
            <>
              <strong className="amount--negative">Unable to fetch balance.</strong>{' '}
              <RetryButton onRetry={balance.retry} what="loading the balance" />
            </>
          ) : (
            <strong>Loading...</strong>
          )}
        </p>
        {error && (
          <p className="order__error" role="alert">
            {error}
          </p>
        )}
        <div className="modal__actions">
          <button type="submit" className="button" disabled={sending} aria-busy={sending}>
            {sending ? <Spinner label="Sending order" /> : 'Send Order'}
          </button>
          <button type="button" className="button button--ghost" onClick={onClose}>
            Close
          </button>
        </div>
      </form>
    </Modal>
  );
}
