import { CreateCategoryForm } from '../../../features/admin-catalog/CreateCategoryForm';
import '../../../features/admin-catalog/admin-catalog.css';

export function CreateCategoryPage() {
  return (
    <section className="catalog-admin">
      <h1>Create Category</h1>
      <CreateCategoryForm />
    </section>
  );
}
