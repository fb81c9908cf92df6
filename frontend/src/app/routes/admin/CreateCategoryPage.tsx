import { CreateCategoryForm } from '../../../features/admin-catalog/CreateCategoryForm';
import { useTitle } from '../../../lib/useTitle';
import '../../../features/admin-catalog/admin-catalog.css';

export function CreateCategoryPage() {
  useTitle('Create Category');
  return (
    <section className="catalog-admin">
      <h1>Create Category</h1>
      <CreateCategoryForm />
    </section>
  );
}
