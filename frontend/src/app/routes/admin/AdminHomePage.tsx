import { Link } from 'react-router-dom';
import {
  ADMIN_POLL_MS,
  useOrderStatsQuery,
  usePaymentStatsQuery,
  useUserCountQuery,
} from '../../../features/admin/api';
import { dollars } from '../../../lib/format';
import { useTitle } from '../../../lib/useTitle';
import { useFallbackPolling } from '../../../features/live/live';

function Widget({
  label,
  value,
  action,
}: {
  label: string;
  value?: string | number;
  action?: { to: string; label: string };
}) {
  return (
    <div className="widget">
      <span className="widget__label">{label}</span>
      <strong className="widget__value">{value ?? '…'}</strong>
      {action && (
        <Link className="button" to={action.to}>
          {action.label}
        </Link>
      )}
    </div>
  );
}

/** The admin home's figures: the waiting ones follow the live stream, the users' count every 10 s. */
export function AdminHomePage() {
  useTitle('Admin Dashboard');
  const pollingInterval = useFallbackPolling();
  const orders = useOrderStatsQuery(undefined, { pollingInterval });
  const payments = usePaymentStatsQuery(undefined, { pollingInterval });
  const users = useUserCountQuery(undefined, { pollingInterval: ADMIN_POLL_MS });
  const money = (amount?: number) => (amount === undefined ? undefined : dollars(amount));
  return (
    <section>
      <h1>Admin Dashboard</h1>
      {(orders.isError || payments.isError || users.isError) && (
        <p className="note note--error">
          {orders.isError
            ? 'Failed to fetch orders.'
            : users.isError
              ? 'Failed to fetch total users.'
              : 'Failed to fetch payments.'}
        </p>
      )}
      <div className="widgets">
        <Widget label="Total Orders" value={orders.data?.totalOrders} />
        <Widget label="Total Payments" value={payments.data?.totalPayments} />
        <Widget label="Total Users" value={users.data?.count} />
        <Widget label="Total Sales" value={money(payments.data?.totalSales)} />
        <Widget label="Weekly Sales" value={money(payments.data?.weeklySales)} />
        <Widget label="Monthly Sales" value={money(payments.data?.monthlySales)} />
        <Widget
          label="New Orders (Waiting)"
          value={orders.data?.waitingOrders}
          action={{ to: '/admin/active-orders', label: 'View Orders' }}
        />
        <Widget
          label="New Payments (Waiting)"
          value={payments.data?.waitingPayments}
          action={{ to: '/admin/active-payments', label: 'View Payments' }}
        />
      </div>
    </section>
  );
}
