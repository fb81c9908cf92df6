import { useEffect } from 'react';

/** The tab's title: the screen's name, then the store's, as in 'My Orders · Raseed'. */
export function useTitle(screen: string): void {
  useEffect(() => {
    document.title = `${screen} · Raseed`;
  }, [screen]);
}
