import type { SupplierClient } from '@raseed/kit';
import type { DisputeStore } from '../data/disputes';
import type { OrderDeps } from './orders';

/** What the supplier's side of orders works with: placement, status sync, disputes and stuck orders. */
export interface FulfilmentDeps extends OrderDeps {
  supplier: SupplierClient;
  /** Orders settled without the supplier's last word, watched for it (see watchSupplier). */
  disputes: DisputeStore;
}
