import { CustomCategories } from '../../../features/admin-catalog/CustomCategories';
import '../../../features/admin-catalog/admin-catalog.css';

export function ApiCategoriesPage() {
  return (
    <section className="catalog-admin">
      <h1>Api Categories</h1>
      <CustomCategories />
    </section>
  );
}
