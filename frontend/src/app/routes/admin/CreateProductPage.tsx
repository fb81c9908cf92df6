import { Spinner } from '../../../components/Spinner';
import { useAdminCategoriesQuery } from '../../../features/admin-catalog/api';
import { CreateProductForm } from '../../../features/admin-catalog/CreateProductForm';
import { categoriesLoadText } from '../../../features/admin-catalog/texts';
import { useTitle } from '../../../lib/useTitle';
import '../../../features/admin-catalog/admin-catalog.css';

export function CreateProductPage() {
  useTitle('Create Product');
  const categories = useAdminCategoriesQuery();
  return (
    <section className="catalog-admin">
      <h1>Create Product</h1>
      {categories.isLoading ? (
        <Spinner />
      ) : (
        <>
          {categories.isError && <p className="note note--error">{categoriesLoadText(categories.error)}</p>}
          <CreateProductForm categories={categories.data ?? []} />
        </>
      )}
    </section>
  );
}
