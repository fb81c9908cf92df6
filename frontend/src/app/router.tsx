import { createBrowserRouter } from 'react-router-dom';
import { Spinner } from '../components/Spinner';
import { RequireUser } from './guards';
import { RootLayout } from './RootLayout';

// Every page is its own chunk: the first page loads only its own code.
export const router = createBrowserRouter([
  {
    path: '/',
    element: <RootLayout />,
    hydrateFallbackElement: <Spinner />,
    children: [
      { index: true, lazy: () => import('./routes/HomePage').then((m) => ({ Component: m.HomePage })) },
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
      { path: '*', lazy: () => import('./NotFoundPage').then((m) => ({ Component: m.NotFoundPage })) },
    ],
  },
]);
