import { useState } from 'react';
import { FaBitcoin, FaMobileAlt } from 'react-icons/fa';
import { Spinner } from '../../components/Spinner';
import { useSession } from '../../features/auth/session';
import { usePaymentMethodsQuery, type PaymentMethod } from '../../features/payments/api';
import { TopUpModal } from '../../features/payments/TopUpModal';
import { errorText } from '../../lib/errors';
import { useTitle } from '../../lib/useTitle';

export function ChargePage() {
  useTitle('Add Credit');
  const { user } = useSession();
  const methods = usePaymentMethodsQuery();
  const [chosen, setChosen] = useState<PaymentMethod | null>(null);
  return (
    <section className="charge">
      <h1>Add Credit</h1>
      {methods.isLoading && <Spinner />}
      {methods.isError && (
        <p className="note note--error">
          {errorText(methods.error, { failed: 'Something went wrong, Please try again.' })}
        </p>
      )}
      <ul className="grid grid--wide">
        {methods.data?.methods.map((method) => (
          <li key={method.name}>
            <button type="button" className="card card--method" onClick={() => setChosen(method)}>
              {method.name === 'Binance' ? (
                <FaBitcoin className="icon icon--large" aria-hidden="true" />
              ) : (
                <FaMobileAlt className="icon icon--large" aria-hidden="true" />
              )}
              <span className="card__name">{method.name}</span>
            </button>
          </li>
        ))}
      </ul>
      <TopUpModal method={chosen} user={user} onClose={() => setChosen(null)} />
    </section>
  );
}
