import { useEffect } from 'react';
import { useDispatch } from 'react-redux';
import { api } from '../../api/api';
import { useDiscountQuery } from './api';
import { discountSet, type SessionUser } from './session';

/**
 * The user's discount as the server has it now, asked again every `pollingInterval` and when
 * the tab regains focus. A change an admin made, a removal included, shows without signing in
 * again: it is kept in the session, and the catalogue is asked again for the new prices.
 */
export function useDiscount(user: SessionUser, pollingInterval: number): number | null {
  const dispatch = useDispatch();
  const { data } = useDiscountQuery(user.id, { pollingInterval, refetchOnFocus: true });
  const known = user.percentage ?? null;
  // Until the server answers (or when it cannot), the session's copy from the sign-in.
  const current = data ? data.percentage : known;
  useEffect(() => {
    if (current === known) return;
    dispatch(discountSet(current));
    dispatch(api.util.invalidateTags(['Catalog']));
  }, [current, known, dispatch]);
  return current;
}
