import { Link, NavLink, Outlet } from 'react-router-dom';

export function Layout() {
  return (
    <>
      <header className="header">
        <nav className="header__nav" aria-label="Main">
          <Link to="/" className="header__home" aria-label="Raseed home">
            <img src="/logo.svg" alt="" width="32" height="32" />
            <span>Raseed</span>
          </Link>
          <div className="header__links">
            <NavLink to="/signin" className="header__link">
              Sign In
            </NavLink>
            <NavLink to="/signup" className="header__link header__link--primary">
              Register
            </NavLink>
          </div>
        </nav>
      </header>
      <main className="main">
        <Outlet />
      </main>
    </>
  );
}
