import type { ReactNode } from 'react';
import { Expandable, StatusBadge } from '../../components/Expandable';
import { Params } from '../../components/Params';
import { displayTime, dollars } from '../../lib/format';
import type { Order } from '../ordering/api';

/** An order in the admin's lists: who, what, how much and when; its params and reply when opened. */
export function OrderRow({ order, children, open }: { order: Order; children?: ReactNode; open?: boolean }) {
  return (
    <Expandable
      defaultOpen={open}
      summary={
        <span className="row__fields">
          <span className="row__id">#{order.id.slice(-8)}</span>
          <StatusBadge status={order.status} />
          <span className="row__name" dir="auto">
            {order.product_name}
          </span>
          <span>{order.username}</span>
          <span>{dollars(order.total_price)}</span>
          <span>× {order.quantity}</span>
          <time dateTime={order.created_at}>{displayTime(order.created_at)}</time>
        </span>
      }
    >
      <p>
        Order id: {order.id} · User id: {order.user_id}
        {order.order_id ? ` · Supplier order: ${order.order_id}` : ''}
      </p>
      <h3>Additional Information</h3>
      <Params params={order.params} />
      {order.replay_api && (
        <p className="reply">
          Reply: <span dir="auto">{order.replay_api}</span>
        </p>
      )}
      {children}
    </Expandable>
  );
}
