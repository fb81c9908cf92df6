import { ProfitForAll } from '../../../features/admin-catalog/ProfitForAll';
import { SupplierProducts } from '../../../features/admin-catalog/SupplierProducts';
import { useTitle } from '../../../lib/useTitle';
import '../../../features/admin-catalog/admin-catalog.css';

export function ApiProductsPage() {
  useTitle('Api Products');
  return (
    <section className="catalog-admin">
      <h1>Api Products</h1>
      <ProfitForAll />
      <SupplierProducts />
    </section>
  );
}
