import { CustomCategories } from '../../../features/admin-catalog/CustomCategories';
import { useTitle } from '../../../lib/useTitle';
import '../../../features/admin-catalog/admin-catalog.css';

export function ApiCategoriesPage() {
  useTitle('Api Categories');
  return (
    <section className="catalog-admin">
      <h1>Api Categories</h1>
      <CustomCategories />
    </section>
  );
}
