import { Link } from 'react-router-dom';

const SECTIONS = [
  'Applications section',
  'Games section',
  'Cards section',
  'الرصيد والباقات',
  'Numbers section',
  'Social Media Section',
] as const;

export function HomePage() {
  return (
    <section className="home">
      <img className="home__logo" src="/logo.svg" alt="Raseed logo" width="72" height="72" />
      <h1>Welcome to Raseed</h1>
      <ul className="home__sections">
        {SECTIONS.map((name) => (
          <li key={name}>
            <Link className="home__tile" to={`/category/${encodeURIComponent(name)}`} dir="auto">
              {name}
            </Link>
          </li>
        ))}
      </ul>
    </section>
  );
}
