import type { ReactNode } from 'react';
import { Expandable, StatusBadge } from '../../components/Expandable';
import { Picture } from '../../components/Picture';
import { displayTime, dollars } from '../../lib/format';
import type { Payment } from '../payments/api';

/** A payment in the admin's lists; opened, its details and the transfer's screenshot. */
export function PaymentRow({ payment, children }: { payment: Payment; children?: ReactNode }) {
  return (
    <Expandable
      summary={
        <span className="row__fields">
          <span className="row__name">{payment.product_name}</span>
          <span>{dollars(payment.amount)}</span>
          <span>{payment.type}</span>
          <span>{payment.username}</span>
          <StatusBadge status={payment.status} />
          <time dateTime={payment.created_at}>{displayTime(payment.created_at)}</time>
        </span>
      }
    >
      <dl className="params">
        <div>
          <dt>Payment id</dt>
          <dd>{payment.id}</dd>
        </div>
        <div>
          <dt>User id</dt>
          <dd>{payment.user_id}</dd>
        </div>
        {payment.amount_to_send !== null && (
          <div>
            <dt>Amount to send</dt>
            <dd>{dollars(payment.amount_to_send)}</dd>
          </div>
        )}
      </dl>
      {payment.image_path && (
        <Picture className="receipt" src={payment.image_path} alt="Transfer screenshot" />
      )}
      {children}
    </Expandable>
  );
}
