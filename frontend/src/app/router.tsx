import { createBrowserRouter, type RouteObject } from 'react-router-dom';
import { Spinner } from '../components/Spinner';
import { catalogApi } from '../features/catalog/api';
import { ErrorScreen, RootErrorScreen } from './ErrorPage';
import { RequireUser } from './guards';
import { RootLayout } from './RootLayout';
import { store } from './store';

/** The back office's pages, inside the admin guard and menu. */
const adminPages: RouteObject[] = [
  {
    index: true,
    lazy: () => import('./routes/admin/AdminHomePage').then((m) => ({ Component: m.AdminHomePage })),
  },
  {
    path: 'orders',
    lazy: () => import('./routes/admin/OrdersHistoryPage').then((m) => ({ Component: m.OrdersHistoryPage })),
  },
  {
    path: 'active-orders',
    lazy: () => import('./routes/admin/ActiveOrdersPage').then((m) => ({ Component: m.ActiveOrdersPage })),
  },
  {
    path: 'disputed-orders',
    lazy: () =>
      import('./routes/admin/DisputedOrdersPage').then((m) => ({ Component: m.DisputedOrdersPage })),
  },
  {
    path: 'payments-history',
    lazy: () =>
      import('./routes/admin/PaymentsHistoryPage').then((m) => ({
        Component: m.PaymentsHistoryPage,
      })),
  },
  {
    path: 'active-payments',
    lazy: () =>
      import('./routes/admin/ActivePaymentsPage').then((m) => ({ Component: m.ActivePaymentsPage })),
  },
  {
    path: 'users',
    lazy: () => import('./routes/admin/UsersPage').then((m) => ({ Component: m.UsersPage })),
  },
  {
    path: 'create-admin',
    lazy: () => import('./routes/admin/CreateAdminPage').then((m) => ({ Component: m.CreateAdminPage })),
  },
  {
    path: 'ApiProducts',
    lazy: () => import('./routes/admin/ApiProductsPage').then((m) => ({ Component: m.ApiProductsPage })),
  },
  {
    path: 'ApiCategories',
    lazy: () => import('./routes/admin/ApiCategoriesPage').then((m) => ({ Component: m.ApiCategoriesPage })),
  },
  {
    path: 'create',
    children: [
      {
        index: true,
        lazy: () => import('./routes/admin/CreateHomePage').then((m) => ({ Component: m.CreateHomePage })),
      },
      {
        path: 'category',
        lazy: () =>
          import('./routes/admin/CreateCategoryPage').then((m) => ({
            Component: m.CreateCategoryPage,
          })),
      },
      {
        path: 'product',
        lazy: () =>
          import('./routes/admin/CreateProductPage').then((m) => ({
            Component: m.CreateProductPage,
          })),
      },
    ],
  },
];

/** The store's pages, inside the header. */
const pages: RouteObject[] = [
  {
    index: true,
    lazy: () => {
      // The sections are asked for beside the page's code rather than once it has come and
      // rendered, in a task of their own.
      setTimeout(() => void store.dispatch(catalogApi.util.prefetch('sections', undefined, {})));
      return import('./routes/HomePage').then((m) => ({ Component: m.HomePage }));
    },
  },
  {
    path: 'category/:id',
    lazy: () => import('./routes/CategoryPage').then((m) => ({ Component: m.CategoryPage })),
  },
  {
    path: 'signin',
    lazy: () => import('./routes/SignInPage').then((m) => ({ Component: m.SignInPage })),
  },
  {
    path: 'signup',
    lazy: () => import('./routes/SignUpPage').then((m) => ({ Component: m.SignUpPage })),
  },
  {
    path: 'request-reset-password',
    lazy: () => import('./routes/RequestResetPage').then((m) => ({ Component: m.RequestResetPage })),
  },
  {
    path: 'reset-password/:token',
    lazy: () => import('./routes/ResetPasswordPage').then((m) => ({ Component: m.ResetPasswordPage })),
  },
  {
    path: 'about-us',
    lazy: () => import('./routes/AboutPage').then((m) => ({ Component: m.AboutPage })),
  },
  {
    path: 'contact-us',
    lazy: () => import('./routes/ContactPage').then((m) => ({ Component: m.ContactPage })),
  },
  {
    path: 'profile/:id',
    lazy: () => import('./routes/ProfilePage').then((m) => ({ Component: m.ProfilePage })),
  },
  {
    element: <RequireUser />,
    children: [
      {
        path: 'my-orders',
        lazy: () => import('./routes/MyOrdersPage').then((m) => ({ Component: m.MyOrdersPage })),
      },
      {
        path: 'my-payments',
        lazy: () => import('./routes/MyPaymentsPage').then((m) => ({ Component: m.MyPaymentsPage })),
      },
      {
        path: 'charge',
        lazy: () => import('./routes/ChargePage').then((m) => ({ Component: m.ChargePage })),
      },
    ],
  },
  {
    path: 'admin',
    // The back office's code, its guard and menu included, loads only when /admin is opened.
    lazy: () => import('./AdminLayout').then((m) => ({ Component: m.AdminLayout })),
    children: [{ errorElement: <ErrorScreen />, children: adminPages }],
  },
  { path: '*', lazy: () => import('./NotFoundPage').then((m) => ({ Component: m.NotFoundPage })) },
];

// Every page is its own chunk: the first page loads only its own code. The header shows at
// once, the spinner in its place while the first page's code loads. A page that fails to load
// or to render shows the error screen inside the layouts around it (header, admin menu). Made
// when main.tsx asks, in a task of its own, as it starts the first page's navigation at once.
export const createRouter = () =>
  createBrowserRouter([
    {
      path: '/',
      element: <RootLayout />,
      errorElement: <RootErrorScreen />,
      children: [{ hydrateFallbackElement: <Spinner />, errorElement: <ErrorScreen />, children: pages }],
    },
  ]);
