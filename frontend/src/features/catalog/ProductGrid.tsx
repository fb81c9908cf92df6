import { Link } from 'react-router-dom';
import { Picture } from '../../components/Picture';
import { dollars } from '../../lib/format';
import type { Product, SubCategory } from './api';

/** The cards of a grid a phone shows before any scrolling. */
const FIRST_SCREEN = 4;

/** A card's picture: those on the first screen are asked for at once. */
function CardPicture({ src, index }: { src: string; index: number }) {
  return (
    <Picture className="card__image" src={src} alt="" width="160" height="107" eager={index < FIRST_SCREEN} />
  );
}

export function SubCategoryGrid({ items }: { items: SubCategory[] }) {
  if (!items.length) return null;
  return (
    <ul className="grid" aria-label="Categories">
      {items.map((c, i) => (
        <li key={c.id}>
          <Link className="card" to={`/category/${encodeURIComponent(c.name)}`}>
            <CardPicture src={c.image} index={i} />
            <span className="card__name" dir="auto">
              {c.name}
            </span>
          </Link>
        </li>
      ))}
    </ul>
  );
}

/** Products with this user's price; an unavailable or sold-out one is dimmed and cannot be chosen. */
export function ProductGrid({ items, onChoose }: { items: Product[]; onChoose: (product: Product) => void }) {
  if (!items.length) return null;
  return (
    <ul className="grid" aria-label="Products">
      {items.map((p, i) => {
        const orderable = p.available && !p.out_of_stock;
        return (
          <li key={p.id}>
            <button
              type="button"
              className={orderable ? 'card' : 'card card--unavailable'}
              disabled={!orderable}
              onClick={() => onChoose(p)}
            >
              <CardPicture src={p.image} index={i} />
              <span className="card__name" dir="auto">
                {p.name}
              </span>
              <span className="card__price">{dollars(p.price)}</span>
              {p.available && p.out_of_stock && <span className="card__stock">Out of stock</span>}
            </button>
          </li>
        );
      })}
    </ul>
  );
}
