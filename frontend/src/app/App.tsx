import { Provider } from 'react-redux';
import { RouterProvider } from 'react-router-dom';
import { createRouter } from './router';
import { store } from './store';

export { createRouter };

export function App({ router }: { router: ReturnType<typeof createRouter> }) {
  return (
    <Provider store={store}>
      <RouterProvider router={router} />
    </Provider>
  );
}
