import { createEvent } from '@raseed/kit';

/** catalog.product-changed (schema in services/kit/src/events.ts), keyed by the product's id. */
export const productChanged = (
  product: { _id: string; name: string; categoryName: string; price: number; available: boolean },
  change: 'created' | 'updated' | 'removed',
) =>
  createEvent('catalog', 'catalog.product-changed', product._id, {
    productId: product._id,
    name: product.name,
    categoryName: product.categoryName,
    price: product.price,
    available: change !== 'removed' && product.available,
    change,
  });
