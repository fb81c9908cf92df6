import { FaEye } from 'react-icons/fa';
import { CopyButton } from '../../components/CopyButton';
import { RetryButton } from '../../components/RetryButton';
import { useLazyRevealCodesQuery, type Order } from './api';

/** The codes of one's own order delivered from stock: hidden until asked for, each with Copy. */
export function RevealCodes({ order }: { order: Order }) {
  const [reveal, revealed] = useLazyRevealCodesQuery();
  if (!revealed.data && !revealed.isFetching && !revealed.isError)
    return (
      <button type="button" className="button button--small" onClick={() => void reveal(order.id)}>
        <FaEye aria-hidden="true" /> Reveal code
      </button>
    );
  if (revealed.isFetching) return <p aria-busy="true">Loading...</p>;
  if (revealed.isError)
    return (
      <p className="note note--error">
        The code could not be shown.{' '}
        <RetryButton onRetry={() => void reveal(order.id)} what="showing the code" />
      </p>
    );
  return (
    <ul className="codes">
      {revealed.data!.codes.map((c, i) => (
        <li key={i} className="codes__item">
          <span className="codes__code" dir="ltr">
            {c.code}
          </span>
          <CopyButton text={c.code} what={`code ${i + 1}`} />
          {c.serial && <span>Serial: {c.serial}</span>}
          {c.pin && (
            <span>
              PIN: {c.pin} <CopyButton text={c.pin} what={`PIN ${i + 1}`} />
            </span>
          )}
          {c.expires && <span>Expires: {c.expires}</span>}
        </li>
      ))}
    </ul>
  );
}
