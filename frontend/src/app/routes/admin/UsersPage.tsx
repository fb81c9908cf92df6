import { useState } from 'react';
import { Link } from 'react-router-dom';
import { toast } from '../../../lib/toast';
import { Details } from '../../../components/Details';
import { Pagination } from '../../../components/Pagination';
import { Spinner } from '../../../components/Spinner';
import { useSearchUsersQuery, useUsersQuery, type AdminUser } from '../../../features/admin/api';
import { UserActionModal, type UserAction } from '../../../features/admin/UserActions';
import { errorText } from '../../../lib/errors';
import { displayTime, dollars } from '../../../lib/format';
import { useTitle } from '../../../lib/useTitle';

function UserCard({ user, onAction }: { user: AdminUser; onAction: (action: UserAction) => void }) {
  const button = (action: UserAction, label: string, className = 'button button--ghost') => (
    <button type="button" className={className} onClick={() => onAction(action)}>
      {label}
    </button>
  );
  const discount = user.percentage
    ? `${user.percentage}%${user.percentage_set_at ? ` since ${displayTime(user.percentage_set_at)}` : ''}`
    : 'None';
  return (
    <li className="user-card">
      <h2 className="user-card__name">{user.username}</h2>
      <Details
        items={[
          ['ID', user.id],
          ['Email', user.email],
          ['Phone', user.phone || 'N/A'],
          ['Joined', displayTime(user.created_at)],
          ['Sales', dollars(user.sales)],
          ['Discount', discount],
          ['Debt', dollars(user.debt)],
          ['Sales since the last discount', dollars(user.lastsales)],
        ]}
      />
      <div className="user-card__actions">
        {button('credit', 'Add to wallet', 'button')}
        {button('withdraw', 'Withdraw')}
        {button('debt', 'Add credit as debt')}
        {button('editDebt', 'Change debt')}
        {button('discount', user.percentage ? 'Change discount' : 'Add discount')}
        <Link className="button button--ghost" to={`/profile/${user.id}`}>
          Profile
        </Link>
      </div>
    </li>
  );
}

export function UsersPage() {
  useTitle('All Users');
  const [page, setPage] = useState(1);
  const [typed, setTyped] = useState('');
  const [query, setQuery] = useState('');
  const [acting, setActing] = useState<{ user: AdminUser; action: UserAction } | null>(null);
  const listed = useUsersQuery({ page }, { skip: !!query });
  const found = useSearchUsersQuery({ query, page }, { skip: !query });
  const result = query ? found : listed;
  const users = result.data?.users ?? [];

  return (
    <section>
      <h1>All Users</h1>
      <form
        className="search-bar"
        onSubmit={(event) => {
          event.preventDefault();
          if (!typed.trim()) return void toast.warning('Please enter a search query.');
          setQuery(typed.trim());
          setPage(1);
        }}
      >
        <input
          type="search"
          aria-label="Search users"
          placeholder="Search by name, e-mail or phone"
          value={typed}
          onChange={(e) => setTyped(e.target.value)}
        />
        <button type="submit" className="button">
          Search
        </button>
        {query && (
          <button
            type="button"
            className="button button--ghost"
            onClick={() => {
              setTyped('');
              setQuery('');
              setPage(1);
            }}
          >
            Reset
          </button>
        )}
      </form>
      {result.isLoading || result.isFetching ? (
        <Spinner />
      ) : result.isError ? (
        <p className="note note--error">
          {errorText(result.error, {
            failed: query
              ? 'Failed to search users. Please try again.'
              : 'Failed to fetch users. Please try again.',
          })}
        </p>
      ) : !users.length ? (
        <p className="empty">{query ? 'No users found matching your search.' : 'No users found.'}</p>
      ) : (
        <ul className="user-cards">
          {users.map((user) => (
            <UserCard key={user.id} user={user} onAction={(action) => setActing({ user, action })} />
          ))}
        </ul>
      )}
      <Pagination page={page} totalPages={result.data?.totalPages ?? 1} onPage={setPage} />
      {acting && (
        <UserActionModal
          key={`${acting.user.id}-${acting.action}`}
          user={acting.user}
          action={acting.action}
          onClose={() => setActing(null)}
        />
      )}
    </section>
  );
}
