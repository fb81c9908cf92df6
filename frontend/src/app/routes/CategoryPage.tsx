import { useState } from 'react';
import { FaArrowLeft } from 'react-icons/fa';
import { useNavigate, useParams } from 'react-router-dom';
import { toast } from '../../lib/toast';
import { Spinner } from '../../components/Spinner';
import { useCategoryPageQuery, type Product } from '../../features/catalog/api';
import { ProductGrid, SubCategoryGrid } from '../../features/catalog/ProductGrid';
import { useSession } from '../../features/auth/session';
import { OrderModal } from '../../features/ordering/OrderModal';
import { useBalanceQuery } from '../../features/wallet/api';
import { errorText } from '../../lib/errors';
import { useDebounced } from '../../lib/useDebounced';
import { useTitle } from '../../lib/useTitle';

export function CategoryPage() {
  const { id: name = '' } = useParams();
  useTitle(`Products in ${name}`);
  const navigate = useNavigate();
  const { user } = useSession();
  const [search, setSearch] = useState('');
  const [chosen, setChosen] = useState<Product | null>(null);
  const query = useDebounced(search.trim());
  const page = useCategoryPageQuery({ name, search: query, userId: user?.id });
  const balance = useBalanceQuery(user?.id ?? '', { skip: !user });

  const choose = (product: Product) => {
    if (!user) {
      toast.warning('Please sign in first !');
      return;
    }
    if (balance.isError) toast.error('Unable to fetch balance.', { toastId: 'balance' });
    setChosen(product);
  };

  return (
    <section className="category">
      <div className="category__bar">
        <button type="button" className="button button--ghost" onClick={() => navigate(-1)} aria-label="Back">
          <FaArrowLeft className="icon" aria-hidden="true" />
        </button>
        <h1 dir="auto">Products in {name}</h1>
      </div>
      <input
        type="search"
        className="category__search"
        placeholder="Search..."
        aria-label="Search products"
        value={search}
        onChange={(e) => setSearch(e.target.value)}
      />
      {page.isLoading ? (
        <Spinner />
      ) : page.isError ? (
        <p className="note note--error">
          Oops! Something went wrong:{' '}
          {errorText(page.error, { failed: 'Something went wrong, Please try again.' })}
        </p>
      ) : (
        <>
          <SubCategoryGrid items={page.data?.subcategories ?? []} />
          <ProductGrid items={page.data?.products ?? []} onChoose={choose} />
          {!page.data?.products.length && !page.data?.subcategories.length && (
            <p className="empty">No products available.</p>
          )}
        </>
      )}
      <OrderModal
        key={chosen?.id}
        product={chosen}
        balance={{
          amount: balance.data?.balance,
          failed: balance.isError,
          retry: () => void balance.refetch(),
        }}
        onClose={() => setChosen(null)}
      />
    </section>
  );
}
