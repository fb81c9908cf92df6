import { Link } from 'react-router-dom';
import { Picture } from '../../components/Picture';
import { dollars } from '../../lib/format';
import type { Product, SubCategory } from './api';

export function SubCategoryGrid({ items }: { items: SubCategory[] }) {
  if (!items.length) return null;
  return (
    <ul className="grid" aria-label="Categories">
      {items.map((c) => (
        <li key={c.id}>
          <Link className="card" to={`/category/${encodeURIComponent(c.name)}`}>
            <Picture className="card__image" src={c.image} alt="" width="160" height="107" />
            <span className="card__name" dir="auto">
              {c.name}
            </span>
          </Link>
        </li>
      ))}
    </ul>
  );
}

/** Products with this user's price; an unavailable one is dimmed and cannot be chosen. */
export function ProductGrid({ items, onChoose }: { items: Product[]; onChoose: (product: Product) => void }) {
  if (!items.length) return null;
  return (
    <ul className="grid" aria-label="Products">
      {items.map((p) => (
        <li key={p.id}>
          <button
            type="button"
            className={p.available ? 'card' : 'card card--unavailable'}
            disabled={!p.available}
            onClick={() => onChoose(p)}
          >
            <Picture className="card__image" src={p.image} alt="" width="160" height="107" />
            <span className="card__name" dir="auto">
              {p.name}
            </span>
            <span className="card__price">{dollars(p.price)}</span>
          </button>
        </li>
      ))}
    </ul>
  );
}
