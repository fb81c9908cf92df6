import { ProfitForAll } from '../../../features/admin-catalog/ProfitForAll';
import { SupplierProducts } from '../../../features/admin-catalog/SupplierProducts';
import '../../../features/admin-catalog/admin-catalog.css';

export function ApiProductsPage() {
  return (
    <section className="catalog-admin">
      <h1>Api Products</h1>
      <ProfitForAll />
      <SupplierProducts />
    </section>
  );
}
