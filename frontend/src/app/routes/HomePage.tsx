import { SECTION_NAMES } from '@raseed/forms';
import { Link } from 'react-router-dom';
import { Picture } from '../../components/Picture';
import { useSectionsQuery } from '../../features/catalog/api';
import { useTitle } from '../../lib/useTitle';

/** The six fixed sections; one the catalogue does not answer shows as a placeholder. */
export function HomePage() {
  useTitle('Home');
  const { data: sections } = useSectionsQuery();
  return (
    <section className="home">
      <img className="home__logo" src="/logo.svg" alt="Raseed logo" width="72" height="72" />
      <h1>Welcome to Raseed</h1>
      <ul className="tiles">
        {SECTION_NAMES.map((name) => {
          const section = sections?.find((s) => s.name.toLowerCase() === name.toLowerCase());
          return (
            <li key={name}>
              {section ? (
                <Link className="tile" to={`/category/${encodeURIComponent(section.name)}`}>
                  <Picture
                    className="tile__image"
                    src={section.image}
                    alt=""
                    width="160"
                    height="107"
                    eager
                  />
                  <span className="tile__name" dir="auto">
                    {section.name}
                  </span>
                </Link>
              ) : (
                <div className="tile tile--placeholder" aria-busy={!sections}>
                  <span className="tile__image" />
                  <span className="tile__name" dir="auto">
                    {name}
                  </span>
                </div>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
