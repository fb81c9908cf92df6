import type { ReactNode } from 'react';
import { Expandable, StatusBadge } from '../../components/Expandable';
import { Params } from '../../components/Params';
import { displayTime, dollars } from '../../lib/format';
import type { Order } from './api';
import { RevealCodes } from './RevealCodes';

interface OrderRowProps {
  order: Order;
  /** The back office also shows whose order it is and the supplier's id for it. */
  staff?: boolean;
  open?: boolean;
  children?: ReactNode;
}

/** An order in a list: who, what, how much and when; opened, its params and the reply. */
export function OrderRow({ order, staff = false, open, children }: OrderRowProps) {
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
        Order id: {order.id}
        {staff && ` · User id: ${order.user_id}`}
        {staff && order.order_id && ` · Supplier order: ${order.order_id}`}
      </p>
      <h2 className="row__heading">Additional Information</h2>
      <Params params={order.params} />
      {order.replay_api && (
        <p className="reply">
          Reply: <span dir="auto">{order.replay_api}</span>
        </p>
      )}
      {!staff && order.from_stock && order.status === 'confirmed' && <RevealCodes order={order} />}
      {children}
    </Expandable>
  );
}
