import { useEffect, useState } from 'react';
import { FaBars, FaHome, FaRedo, FaTimes, FaUserCircle } from 'react-icons/fa';
import { useDispatch } from 'react-redux';
import { Link, NavLink, useLocation, useNavigate } from 'react-router-dom';
import { toast } from '../lib/toast';
import { api } from '../api/api';
import { Arabic, REMAINING_DEBT } from '../components/Arabic';
import { useLogoutMutation } from '../features/auth/api';
import { signedOut, useSession, type SessionUser } from '../features/auth/session';
import { useDiscount } from '../features/auth/useDiscount';
import { useFallbackPolling } from '../features/live/live';
import { useBalanceQuery, useDebtQuery } from '../features/wallet/api';
import { dollars } from '../lib/format';

/** The wallet figures of the header: balance, remaining debt and the discount badge. */
function WalletBadges({ user }: { user: SessionUser }) {
  const pollingInterval = useFallbackPolling();
  const wallet = { pollingInterval, refetchOnFocus: true };
  const balance = useBalanceQuery(user.id, wallet);
  const debt = useDebtQuery(user.id, wallet);
  const percentage = useDiscount(user, pollingInterval);
  useEffect(() => {
    if (balance.isError) toast.error('Unable to fetch balance.', { toastId: 'balance' });
  }, [balance.isError]);
  return (
    <div className="header__wallet">
      {balance.data ? (
        <span className="badge badge--balance" data-testid="header-balance">
          {dollars(balance.data.balance)}
        </span>
      ) : balance.isError ? (
        // Never a false 0.00$: the balance is unknown until it is asked again.
        <button
          type="button"
          className="badge badge--balance badge--retry"
          data-testid="header-balance"
          title="Unable to fetch balance."
          onClick={() => void balance.refetch()}
        >
          <FaRedo aria-hidden="true" /> Retry<span className="visually-hidden"> loading the balance</span>
        </button>
      ) : (
        <span className="badge badge--balance" data-testid="header-balance" aria-busy="true">
          <span aria-hidden="true">…</span>
          <span className="visually-hidden">Loading the balance</span>
        </span>
      )}
      {(debt.data?.debt ?? 0) > 0 && (
        <span className="badge badge--debt" data-testid="header-debt">
          <Arabic>{REMAINING_DEBT}</Arabic> {dollars(debt.data?.debt ?? 0)}
        </span>
      )}
      {percentage ? (
        <span className="badge badge--discount" data-testid="header-discount">
          Discount: {percentage}%
        </span>
      ) : null}
    </div>
  );
}

export function Header() {
  const { user } = useSession();
  const dispatch = useDispatch();
  const navigate = useNavigate();
  const location = useLocation();
  const [logout] = useLogoutMutation();
  // Each menu is open on the page it was opened on: a new page closes it.
  const [menuOn, setMenuOn] = useState<string>();
  const [accountOn, setAccountOn] = useState<string>();
  const menuOpen = menuOn === location.pathname;
  const accountOpen = accountOn === location.pathname;
  const setMenuOpen = (open: boolean) => setMenuOn(open ? location.pathname : undefined);
  const setAccountOpen = (open: boolean) => setAccountOn(open ? location.pathname : undefined);

  const signOut = async () => {
    setAccountOpen(false);
    const answer = await logout();
    if ('error' in answer) {
      toast.error('Logout failed');
      return;
    }
    dispatch(signedOut());
    dispatch(api.util.resetApiState());
    toast.success('Logged out successfully');
    setTimeout(() => navigate('/signin'), 1000);
  };

  const link = (to: string, label: string) => (
    <NavLink to={to} className="header__link">
      {label}
    </NavLink>
  );

  return (
    <header className="header">
      <nav className="header__bar" aria-label="Main">
        <Link to="/" className="header__home" aria-label="Home">
          <FaHome className="icon" aria-hidden="true" />
        </Link>
        {user && <WalletBadges user={user} />}
        <button
          type="button"
          className="header__toggle"
          aria-label={menuOpen ? 'Close menu' : 'Open menu'}
          aria-expanded={menuOpen}
          aria-controls="header-menu"
          onClick={() => setMenuOpen(!menuOpen)}
        >
          {menuOpen ? <FaTimes className="icon" /> : <FaBars className="icon" />}
        </button>
        <div id="header-menu" className={menuOpen ? 'header__menu header__menu--open' : 'header__menu'}>
          {user && (
            <>
              {link('/my-orders', 'My Orders')}
              {link('/my-payments', 'My Payments')}
              {link('/charge', 'Add Credit')}
              {user.role === 'admin' && link('/admin', 'Admin Dashboard')}
            </>
          )}
          {link('/about-us', 'About Us')}
          {link('/contact-us', 'Contact Us')}
          {user ? (
            <div className="account">
              <button
                type="button"
                className="header__link account__button"
                aria-haspopup="menu"
                aria-expanded={accountOpen}
                onClick={() => setAccountOpen(!accountOpen)}
              >
                <FaUserCircle className="icon" aria-hidden="true" /> My Account
              </button>
              {accountOpen && (
                <div className="account__menu" role="menu">
                  <Link role="menuitem" to={`/profile/${user.id}`}>
                    Profile
                  </Link>
                  <button role="menuitem" type="button" onClick={signOut}>
                    Logout
                  </button>
                  <Link role="menuitem" to="/signup">
                    Register
                  </Link>
                </div>
              )}
            </div>
          ) : (
            <>
              {link('/signin', 'Sign In')}
              <NavLink to="/signup" className="header__link header__link--primary">
                Register
              </NavLink>
            </>
          )}
        </div>
      </nav>
    </header>
  );
}
