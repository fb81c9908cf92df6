import { useEffect, useState } from 'react';
import { useDispatch } from 'react-redux';
import { Navigate, useNavigate, useParams } from 'react-router-dom';
import { toast } from '../../lib/toast';
import { api } from '../../api/api';
import { Arabic, REMAINING_DEBT } from '../../components/Arabic';
import { Details } from '../../components/Details';
import { Modal } from '../../components/Modal';
import { Pagination } from '../../components/Pagination';
import { RetryButton } from '../../components/RetryButton';
import { Spinner } from '../../components/Spinner';
import { useDeleteUserMutation, useLogoutMutation, useUserQuery } from '../../features/auth/api';
import { EmailPreference } from '../../features/auth/EmailPreference';
import { signedOut, useSession } from '../../features/auth/session';
import { useBalanceQuery, useDebtQuery, useTransactionsQuery } from '../../features/wallet/api';
import { errorText, httpStatus } from '../../lib/errors';
import { displayTime, dollars } from '../../lib/format';
import { Waiting } from '../guards';
import { useTitle } from '../../lib/useTitle';

const NO_PERMISSION = 'You do not have permission to access this profile.';

/** Another user's profile: the toast, then home. */
function Denied() {
  useEffect(() => {
    toast.error(NO_PERMISSION, { toastId: NO_PERMISSION });
  }, []);
  return <Navigate to="/" replace />;
}

function Transactions({ userId }: { userId: string }) {
  const [page, setPage] = useState(1);
  const result = useTransactionsQuery({ userId, page });
  const list = result.data?.transactions ?? [];
  const notFound = httpStatus(result.error) === 404;
  return (
    <section className="profile__transactions">
      <h2>Your Transactions</h2>
      {result.isLoading ? (
        <Spinner />
      ) : result.isError && !notFound ? (
        <p className="note note--error">
          {errorText(result.error, {
            failed: 'No transactions found.',
            unreachable: 'Unable to reach the server. Please try again later.',
          })}
        </p>
      ) : !list.length ? (
        <p className="empty">No transactions found.</p>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th>Amount</th>
              <th>Type</th>
              <th>Status</th>
              <th>Date</th>
              <th>Product</th>
            </tr>
          </thead>
          <tbody>
            {list.map((t) => (
              <tr key={t.id}>
                <td>{dollars(t.amount)}</td>
                <td className={t.type === 'IN' ? 'type type--in' : 'type type--out'}>{t.type}</td>
                <td>{t.status}</td>
                <td>{displayTime(t.created_at)}</td>
                <td dir="auto">{t.product_name}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pagination page={page} totalPages={result.data?.totalPages ?? 1} onPage={setPage} />
    </section>
  );
}

function Profile({ id, own }: { id: string; own: boolean }) {
  const dispatch = useDispatch();
  const navigate = useNavigate();
  const details = useUserQuery(id);
  const balance = useBalanceQuery(id);
  const debt = useDebtQuery(id);
  const [deleteUser, { isLoading: deleting }] = useDeleteUserMutation();
  const [logout] = useLogoutMutation();
  const [confirming, setConfirming] = useState(false);

  if (details.isLoading) return <Spinner />;
  if (details.isError || !details.data?.user) {
    const text = details.isError
      ? httpStatus(details.error) === 404
        ? 'User not found'
        : 'Failed to fetch user'
      : 'User data is missing';
    return <p className="note note--error">{text}</p>;
  }
  const user = details.data.user;
  const money = balance.data?.balance;
  const owed = debt.data?.debt ?? 0;

  const remove = async () => {
    const answer = await deleteUser(id);
    if ('error' in answer) {
      toast.error(errorText(answer.error, { failed: 'Deletion failed', unexpected: 'Deletion failed' }));
      return;
    }
    setConfirming(false);
    toast.success('Account deleted successfully');
    if (own) {
      await logout();
      dispatch(signedOut());
      dispatch(api.util.resetApiState());
      navigate('/signin');
    } else navigate('/admin/users');
  };

  return (
    <section className="profile">
      <h1>Welcome, {user.username}!</h1>
      <div className="profile__money">
        <p>
          Your Balance:{' '}
          {money !== undefined ? (
            <strong className={money > 0 ? 'amount amount--positive' : 'amount amount--negative'}>
              {dollars(money)}
            </strong>
          ) : balance.isError ? (
            <>
              <strong className="amount amount--negative">Unable to fetch balance.</strong>{' '}
              <RetryButton onRetry={() => void balance.refetch()} what="loading the balance" />
            </>
          ) : (
            <strong aria-busy="true">…</strong>
          )}
        </p>
        {owed > 0 && (
          <p>
            <Arabic>{REMAINING_DEBT}</Arabic>:{' '}
            <strong className="amount amount--negative">{dollars(owed)}</strong>
          </p>
        )}
      </div>
      <Details
        items={[
          ['Username', user.username],
          ['Email', user.email],
          ['Phone', user.phone || 'N/A'],
        ]}
      />
      <div className="profile__actions">
        <button type="button" className="button" onClick={() => navigate('/request-reset-password')}>
          Reset Password
        </button>
        <button type="button" className="button button--danger" onClick={() => setConfirming(true)}>
          Delete Account
        </button>
      </div>
      {own && <EmailPreference />}
      <Transactions userId={id} />
      <Modal open={confirming} title="Confirm Delete" onClose={() => setConfirming(false)}>
        <h2>Confirm Delete</h2>
        <p>This will delete all your account information.</p>
        <div className="modal__actions">
          <button type="button" className="button button--ghost" onClick={() => setConfirming(false)}>
            Cancel
          </button>
          <button type="button" className="button button--danger" disabled={deleting} onClick={remove}>
            {deleting ? 'Deleting...' : 'Delete'}
          </button>
        </div>
      </Modal>
    </section>
  );
}

export function ProfilePage() {
  useTitle('Profile');
  const { id = '' } = useParams();
  const { user, loading } = useSession();
  if (loading) return <Waiting />;
  if (!user) return <Navigate to="/" replace />;
  if (user.role !== 'admin' && user.id !== id) return <Denied />;
  return <Profile key={id} id={id} own={user.id === id} />;
}
