import { Navigate, NavLink, Outlet } from 'react-router-dom';
import { useSession } from '../features/auth/session';
import { ADMIN_POLL_MS, useOrderStatsQuery, usePaymentStatsQuery } from '../features/admin/api';
import { useDisputedOrdersQuery, useStuckOrdersQuery } from '../features/admin/disputesApi';
import { useFallbackPolling } from '../features/live/live';
import { Waiting } from './guards';

function AdminMenu() {
  const pollingInterval = useFallbackPolling();
  const orders = useOrderStatsQuery(undefined, { pollingInterval });
  const payments = usePaymentStatsQuery(undefined, { pollingInterval });
  // New disputes and stuck orders come on the stream; a write-off has no event, so these are
  // asked every 10 s too. The first page of each list, as the Disputed & Stuck page first asks
  // for it: one request serves both.
  const disputed = useDisputedOrdersQuery({ page: 1 }, { pollingInterval: ADMIN_POLL_MS });
  const stuck = useStuckOrdersQuery({ page: 1 }, { pollingInterval: ADMIN_POLL_MS });
  const needHelp = (disputed.data?.total ?? 0) + (stuck.data?.total ?? 0);
  const link = (to: string, label: string, count?: number) => (
    <NavLink to={to} end={to === '/admin'} className="admin-menu__link">
      {label}
      {count ? (
        <span className="count" aria-label={`${count} waiting`}>
          {count}
        </span>
      ) : null}
    </NavLink>
  );
  return (
    <nav className="admin-menu" aria-label="Admin">
      {link('/admin', 'Admin Dashboard')}
      {link('/admin/create', 'Create Items')}
      {link('/admin/ApiProducts', 'Api Products')}
      {link('/admin/ApiCategories', 'Api Categories')}
      {link('/admin/orders', 'Orders History')}
      {link('/admin/payments-history', 'Payments History')}
      {link('/admin/active-payments', 'Active Payments', payments.data?.waitingPayments)}
      {link('/admin/users', 'All Users')}
      {link('/admin/active-orders', 'Active Orders', orders.data?.waitingOrders)}
      {link('/admin/disputed-orders', 'Disputed & Stuck', needHelp)}
      {link('/admin/create-admin', 'New Admin')}
      {/* The operators' board of the background jobs is served by the gateway itself. */}
      <a href="/admin/queues" className="admin-menu__link">
        Job Queues
      </a>
    </nav>
  );
}

/** The admin guard and the back office's layout: everyone but an admin is sent home (spec §2). */
export function AdminLayout() {
  const { user, loading } = useSession();
  if (loading) return <Waiting />;
  if (user?.role !== 'admin') return <Navigate to="/" replace />;
  return (
    <div className="admin">
      <AdminMenu />
      <div className="admin__content">
        <Outlet />
      </div>
    </div>
  );
}
