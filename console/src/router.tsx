import { useEffect, useState, type MouseEvent, type ReactNode } from 'react';

/** The console's pages live under /console/ (the service answers index.html for any of them). */
export const BASE = '/console';

function current(): string {
  const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : location.pathname;
  return path === '' ? '/' : path;
}

export function navigate(path: string): void {
  history.pushState(null, '', `${BASE}${path}`);
  window.dispatchEvent(new PopStateEvent('popstate'));
}

/** The page's path below /console and its query, following links and the back button. */
function useLocation(): { path: string; search: string } {
  const [where, setWhere] = useState(() => `${current()}${location.search}`);
  useEffect(() => {
    const update = () => setWhere(`${current()}${location.search}`);
    window.addEventListener('popstate', update);
    return () => window.removeEventListener('popstate', update);
  }, []);
  const at = where.indexOf('?');
  return at < 0 ? { path: where, search: '' } : { path: where.slice(0, at), search: where.slice(at) };
}

/** The page's path below /console (e.g. `/users/…`). */
export function usePath(): string {
  return useLocation().path;
}

/** The query string of the page (a change of it alone re-renders too). */
export function useQuery(): URLSearchParams {
  return new URLSearchParams(useLocation().search);
}

/** A link inside the console: a real <a> (keyboard, middle-click, copy), handled without a reload. */
export function Link(props: { to: string; children: ReactNode; className?: string; 'aria-current'?: 'page' | undefined }) {
  const { to, children, ...rest } = props;
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  return (
    <a href={`${BASE}${to}`} onClick={onClick} {...rest}>
      {children}
    </a>
  );
}
