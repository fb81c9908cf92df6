import { useMemo, useState } from 'react';
import { FaEdit } from 'react-icons/fa';
import { Picture } from '../../components/Picture';
import { Spinner } from '../../components/Spinner';
import { useCustomCategoriesQuery, type CustomCategory } from './api';
import { EditCustomCategoryModal } from './EditCustomCategoryModal';
import { SECTION_NAMES } from './forms';
import { nameKey } from './pricing';
import { categoriesLoadText } from './texts';

const SECTION_KEYS = new Set<string>(SECTION_NAMES.map(nameKey));

/** The supplier's categories and their pictures, the six sections left out (spec §2 Api Categories). */
export function CustomCategories() {
  const categories = useCustomCategoriesQuery();
  const [editing, setEditing] = useState<CustomCategory | null>(null);
  const shown = useMemo(
    () => (categories.data ?? []).filter((c) => !SECTION_KEYS.has(nameKey(c.name))),
    [categories.data],
  );

  return (
    <>
      {categories.isLoading ? (
        <Spinner />
      ) : categories.isError ? (
        <p className="note note--error">{categoriesLoadText(categories.error)}</p>
      ) : !shown.length ? (
        <p className="empty">No categories found.</p>
      ) : (
        <ul className="grid" aria-label="Supplier categories">
          {shown.map((c) => (
            <li key={c.id} className="card card--static supplier-product">
              <Picture className="card__image" src={c.image} alt="" width="160" height="107" />
              <span className="card__name" dir="auto">
                {c.name}
              </span>
              <button
                type="button"
                className="icon-button supplier-product__edit"
                aria-label={`Edit ${c.name}`}
                onClick={() => setEditing(c)}
              >
                <FaEdit className="icon" aria-hidden="true" />
              </button>
            </li>
          ))}
        </ul>
      )}
      <EditCustomCategoryModal key={editing?.id} category={editing} onClose={() => setEditing(null)} />
    </>
  );
}
