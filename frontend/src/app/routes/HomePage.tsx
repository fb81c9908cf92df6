import { SECTION_NAMES } from '@raseed/sections';
import { Link } from 'react-router-dom';
import { SectionPicture } from '../../components/SectionPicture';
import { useSectionsQuery } from '../../features/catalog/api';
import { useTitle } from '../../lib/useTitle';

/**
 * The six fixed sections, each with the picture an admin chose or the store's own artwork.
 * A placeholder shows only while the catalogue is answering; without an answer the tiles still lead on.
 */
export function HomePage() {
  useTitle('Home');
  const { data: sections, isLoading } = useSectionsQuery();
  return (
    <section className="home">
      <img className="home__logo" src="/logo.svg" alt="Raseed logo" width="72" height="72" />
      <h1>Welcome to Raseed</h1>
      <ul className="tiles">
        {SECTION_NAMES.map((name) => {
          const section = sections?.find((s) => s.name.toLowerCase() === name.toLowerCase());
          return (
            <li key={name}>
              {isLoading ? (
                <div className="tile tile--placeholder" aria-busy="true">
                  <span className="tile__image" />
                  <span className="tile__name" dir="auto">
                    {name}
                  </span>
                </div>
              ) : (
                <Link className="tile" to={`/category/${encodeURIComponent(section?.name ?? name)}`}>
                  <SectionPicture
                    className="tile__image"
                    name={name}
                    customImage={section?.custom_image}
                    eager
                  />
                  <span className="tile__name" dir="auto">
                    {section?.name ?? name}
                  </span>
                </Link>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
