import type { ReactNode } from 'react';
import { Details } from '../../components/Details';
import { Expandable, StatusBadge } from '../../components/Expandable';
import { Picture } from '../../components/Picture';
import { displayTime, dollars } from '../../lib/format';
import type { Payment } from './api';

/** A payment in a list; opened, its details and the transfer's screenshot. */
export function PaymentRow({ payment, children }: { payment: Payment; children?: ReactNode }) {
  return (
    <Expandable
      summary={
        <span className="row__fields">
          <span className="row__name">{payment.product_name}</span>
          <span>{dollars(payment.amount)}</span>
          <span>{payment.username}</span>
          <StatusBadge status={payment.status} />
          <time dateTime={payment.created_at}>{displayTime(payment.created_at)}</time>
        </span>
      }
    >
      <Details
        items={[
          ['Status', payment.status],
          ['Date', displayTime(payment.created_at)],
          ['Amount', dollars(payment.amount)],
          ...(payment.amount_to_send === null
            ? []
            : [['Amount to send', dollars(payment.amount_to_send)] as [string, string]]),
          ['Type', payment.type],
          ['User id', payment.user_id],
          ['Service', payment.product_name],
        ]}
      />
      {payment.image_path && (
        <Picture className="receipt" src={payment.image_path} alt="Transfer screenshot" />
      )}
      {children}
    </Expandable>
  );
}
