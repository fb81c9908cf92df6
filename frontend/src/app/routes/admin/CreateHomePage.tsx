import { Link } from 'react-router-dom';
import { Spinner } from '../../../components/Spinner';
import { useAdminCategoriesQuery, useCreatedProductsQuery } from '../../../features/admin-catalog/api';
import { CategoriesTable, ProductsTable } from '../../../features/admin-catalog/CatalogTables';
import { SectionPictures } from '../../../features/admin-catalog/SectionPictures';
import { categoriesLoadText, productsLoadText } from '../../../features/admin-catalog/texts';
import { useTitle } from '../../../lib/useTitle';
import '../../../features/admin-catalog/admin-catalog.css';

export function CreateHomePage() {
  useTitle('Create Items');
  const categories = useAdminCategoriesQuery();
  const products = useCreatedProductsQuery();
  return (
    <section className="catalog-admin">
      <h1>Create Items</h1>
      <div className="catalog-admin__head">
        <h2>Categories</h2>
        <Link className="button" to="/admin/create/category">
          Create Category
        </Link>
      </div>
      {categories.isLoading ? (
        <Spinner />
      ) : categories.isError ? (
        <p className="note note--error">{categoriesLoadText(categories.error)}</p>
      ) : categories.data?.length ? (
        <CategoriesTable categories={categories.data} />
      ) : (
        <p className="empty">No categories found.</p>
      )}

      <div className="catalog-admin__head">
        <h2>Products</h2>
        <Link className="button" to="/admin/create/product">
          Create Product
        </Link>
      </div>
      {products.isLoading ? (
        <Spinner />
      ) : products.isError ? (
        <p className="note note--error">{productsLoadText(products.error)}</p>
      ) : products.data?.length ? (
        <ProductsTable products={products.data} />
      ) : (
        <p className="empty">No products found.</p>
      )}

      <div className="catalog-admin__head">
        <h2>Section images</h2>
      </div>
      <p className="hint">
        The picture of each section on the home page: an image of your own, or our artwork.
      </p>
      <SectionPictures />
    </section>
  );
}
