import { Link } from 'react-router-dom';
import { useTitle } from '../lib/useTitle';

export function NotFoundPage() {
  useTitle('Page not found');
  return (
    <section className="not-found">
      <h1>Page not found</h1>
      <p>The page you are looking for does not exist.</p>
      <Link to="/">Back to home</Link>
    </section>
  );
}
