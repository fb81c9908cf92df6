import { useState } from 'react';
import { FaEdit, FaKey, FaTrash } from 'react-icons/fa';
import { toast } from '../../lib/toast';
import { dollars, displayTime } from '../../lib/format';
import { useSetAvailabilityMutation, type AdminCategory, type CreatedProduct } from './api';
import { DeleteProductModal, EditPriceModal } from './ProductModals';
import { StockModal } from './StockModal';
import { StatusToggle } from './StatusToggle';

/** A switch of availability with the spec's toasts (§4): the category or product is now Active or Disabled. */
function useToggle(kind: 'category' | 'product') {
  const [setAvailability] = useSetAvailabilityMutation();
  return async (item: { id: string }, available: boolean) => {
    const kinds = kind === 'category' ? 'categories' : 'products';
    const answer = await setAvailability({ kind: kinds, id: item.id, available });
    if ('error' in answer) toast.error(`Failed to update the ${kind}. Please try again.`);
    else if (available) toast.success(`The ${kind} is now Active!`);
    else toast.warning(`The ${kind} is now Disabled!`);
  };
}

/** The store's categories, each with its availability switch (spec §2 Create home, §4). */
export function CategoriesTable({ categories }: { categories: AdminCategory[] }) {
  const toggle = useToggle('category');
  return (
    <div className="table-scroll">
      <table className="table catalog-table">
        <thead>
          <tr>
            <th scope="col">ID</th>
            <th scope="col">Category Name</th>
            <th scope="col">Section</th>
            <th scope="col">Status</th>
            <th scope="col">Created At</th>
          </tr>
        </thead>
        <tbody>
          {categories.map((c) => (
            <tr key={c.id}>
              <td data-label="ID" className="catalog-table__id">
                {c.id}
              </td>
              <td data-label="Category Name" className="catalog-table__name" dir="auto">
                {c.category_name}
              </td>
              <td data-label="Section" dir="auto">
                {c.section}
              </td>
              <td data-label="Status">
                <StatusToggle
                  label={`Status of ${c.category_name}`}
                  on={c.available}
                  onToggle={(on) => void toggle(c, on)}
                />
              </td>
              <td data-label="Created At">{displayTime(c.created_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The products admins created, with availability, price edit and delete (spec §2 Create home). */
export function ProductsTable({ products }: { products: CreatedProduct[] }) {
  const toggle = useToggle('product');
  const [editing, setEditing] = useState<CreatedProduct | null>(null);
  const [deleting, setDeleting] = useState<CreatedProduct | null>(null);
  const [stocking, setStocking] = useState<CreatedProduct | null>(null);
  return (
    <>
      <div className="table-scroll">
        <table className="table catalog-table">
          <thead>
            <tr>
              <th scope="col">ID</th>
              <th scope="col">Product Name</th>
              <th scope="col">Price</th>
              <th scope="col">Category</th>
              <th scope="col">Status</th>
              <th scope="col">Created At</th>
              <th scope="col">Action</th>
            </tr>
          </thead>
          <tbody>
            {products.map((p) => (
              <tr key={p.id}>
                <td data-label="ID" className="catalog-table__id">
                  {p.id}
                </td>
                <td data-label="Product Name" className="catalog-table__name" dir="auto">
                  {p.product_name}
                </td>
                <td data-label="Price">{dollars(p.price)}</td>
                <td data-label="Category" dir="auto">
                  {p.category_name}
                </td>
                <td data-label="Status">
                  <StatusToggle
                    label={`Status of ${p.product_name}`}
                    on={p.available}
                    onToggle={(on) => void toggle(p, on)}
                  />
                </td>
                <td data-label="Created At">{displayTime(p.created_at)}</td>
                <td data-label="Action">
                  <span className="catalog-table__actions">
                    <button
                      type="button"
                      className="icon-button icon-button--danger"
                      aria-label={`Delete ${p.product_name}`}
                      onClick={() => setDeleting(p)}
                    >
                      <FaTrash className="icon" aria-hidden="true" />
                    </button>
                    <button
                      type="button"
                      className="icon-button"
                      aria-label={`Edit ${p.product_name}`}
                      onClick={() => setEditing(p)}
                    >
                      <FaEdit className="icon" aria-hidden="true" />
                    </button>
                    <button
                      type="button"
                      className="icon-button"
                      aria-label={`Codes of ${p.product_name}`}
                      onClick={() => setStocking(p)}
                    >
                      <FaKey className="icon" aria-hidden="true" />
                    </button>
                  </span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <EditPriceModal key={editing?.id} product={editing} onClose={() => setEditing(null)} />
      <DeleteProductModal product={deleting} onClose={() => setDeleting(null)} />
      <StockModal key={stocking?.id} product={stocking} onClose={() => setStocking(null)} />
    </>
  );
}
