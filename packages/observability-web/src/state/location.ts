import { useEffect, useState } from 'preact/hooks';

/** The part of the browser location the app routes on. */
export interface AppLocation {
  pathname: string;
  search: URLSearchParams;
}

const listeners = new Set<() => void>();

function current(): AppLocation {
  return { pathname: window.location.pathname, search: new URLSearchParams(window.location.search) };
}

function notify(): void {
  for (const listener of listeners) listener();
}

window.addEventListener('popstate', notify);

/** Moves the app to `to` (a path with an optional query string) without reloading the page. */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  const target = new URL(to, window.location.origin);
  const href = `${target.pathname}${target.search}`;
  if (href === `${window.location.pathname}${window.location.search}`) return;
  if (options.replace) window.history.replaceState(null, '', href);
  else window.history.pushState(null, '', href);
  notify();
  if (!options.replace) window.scrollTo(0, 0);
}

/** The current location; re-renders the caller whenever it changes. */
export function useLocation(): AppLocation {
  const [location, setLocation] = useState(current);
  useEffect(() => {
    const listener = () => setLocation(current());
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  }, []);
  return location;
}

/** The path plus query string, e.g. to come back to after signing in. */
export function currentHref(): string {
  return `${window.location.pathname}${window.location.search}`;
}
