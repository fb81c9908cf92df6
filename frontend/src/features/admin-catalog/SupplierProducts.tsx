import { useDeferredValue, useMemo, useState } from 'react';
import { FaEdit } from 'react-icons/fa';
import { toast } from '../../lib/toast';
import { Pagination } from '../../components/Pagination';
import { Picture } from '../../components/Picture';
import { Spinner } from '../../components/Spinner';
import {
  useCustomProductsQuery,
  useSupplierProductsQuery,
  type CustomProduct,
  type SupplierProduct,
} from './api';
import { EditSupplierProductModal, type PricedProduct } from './EditSupplierProductModal';
import { nameKey, supplierDollars, withProfit } from './pricing';
import { serverText, texts } from './texts';

// A supplier may list thousands of products; the page shows them 50 at a time.
const PAGE_SIZE = 50;

/** Each supplier product with the store's profit on it, matched by name (spec §3 Custom product). */
function priced(products: SupplierProduct[], customs: CustomProduct[]): PricedProduct[] {
  const byName = new Map(customs.map((c) => [nameKey(c.product_name), c]));
  return products.map((product) => {
    const custom = byName.get(nameKey(product.name)) ?? null;
    return { ...product, custom, shownPrice: withProfit(product.price, custom?.percentage ?? 1) };
  });
}

/** The supplier's products: search by name, 50 a page, and each one's profit and image (spec §2 Api Products). */
export function SupplierProducts() {
  const products = useSupplierProductsQuery();
  const customs = useCustomProductsQuery();
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  // By id, so an open modal shows the list as the store last answered it.
  const [editingId, setEditingId] = useState<string | null>(null);
  const query = nameKey(useDeferredValue(search));

  const all = useMemo(() => priced(products.data ?? [], customs.data ?? []), [products.data, customs.data]);
  const found = useMemo(
    () => (query ? all.filter((p) => nameKey(p.name).includes(query)) : all),
    [all, query],
  );
  const totalPages = Math.max(1, Math.ceil(found.length / PAGE_SIZE));
  const current = Math.min(page, totalPages);
  const shown = found.slice((current - 1) * PAGE_SIZE, current * PAGE_SIZE);
  const editing = all.find((p) => p.id === editingId) ?? null;

  const edit = (product: PricedProduct) => {
    if (!product.custom) return void toast.error(texts.customMissing(product.name));
    setEditingId(product.id);
  };

  return (
    <>
      <form className="toolbar" role="search" onSubmit={(event) => event.preventDefault()}>
        <label className="toolbar__field">
          Search by name
          <input
            type="search"
            placeholder="Search..."
            value={search}
            onChange={(e) => {
              setSearch(e.target.value);
              setPage(1);
            }}
          />
        </label>
        <button
          type="button"
          className="button button--ghost"
          onClick={() => {
            setSearch('');
            setPage(1);
          }}
        >
          Reset
        </button>
      </form>
      {products.isLoading ? (
        <Spinner />
      ) : products.isError ? (
        <p className="note note--error">{serverText(products.error, texts.supplierFailed)}</p>
      ) : !shown.length ? (
        <p className="empty">No available products found.</p>
      ) : (
        <ul className="grid supplier-products" aria-label="Supplier products">
          {shown.map((p) => (
            <li key={p.id} className="card card--static supplier-product">
              <Picture
                className="card__image"
                src={p.custom?.category_img ?? p.category_img}
                alt=""
                width="160"
                height="107"
              />
              <span className="card__name" dir="auto">
                {p.name}
              </span>
              <span className="card__price">{supplierDollars(p.shownPrice)}</span>
              <button
                type="button"
                className="icon-button supplier-product__edit"
                aria-label={`Edit ${p.name}`}
                onClick={() => edit(p)}
              >
                <FaEdit className="icon" aria-hidden="true" />
              </button>
            </li>
          ))}
        </ul>
      )}
      <Pagination page={current} totalPages={totalPages} onPage={setPage} />
      <EditSupplierProductModal key={editing?.id} product={editing} onClose={() => setEditingId(null)} />
    </>
  );
}
