import { createContext, useCallback, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import type { BastionClient } from '@bastion/client';
import { ApiError, formatDate, type Session } from './api.ts';

export interface ConsoleContext {
  client: BastionClient;
  session: Session;
  signOut: () => void;
}
export const Ctx = createContext<ConsoleContext | undefined>(undefined);
export function useConsole(): ConsoleContext {
  const ctx = useContext(Ctx);
  if (!ctx) throw new Error('outside the signed-in console');
  return ctx;
}

export interface Loaded<T> {
  data?: T;
  error?: unknown;
  loading: boolean;
  reload: () => void;
}

/** Loads once per change of `key` (and on `reload`); the page shows loading, the error or the data. */
export function useLoad<T>(load: (client: BastionClient) => Promise<T>, key: string): Loaded<T> {
  const { client } = useConsole();
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [round, setRound] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    loadRef.current(client).then(
      (data) => live && setState({ data, loading: false }),
      (error: unknown) => live && setState({ error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [client, key, round]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  return { ...state, reload };
}

/** What an admin sees when the API refuses: 403 is "admins only", never data. */
export function AdminsOnly() {
  return (
    <section className="notice notice-error" role="alert" aria-labelledby="admins-only">
      <h2 id="admins-only">Admins only</h2>
      <p>The operator console is for the tenant’s admins. This account is not an admin of the tenant, so the console shows nothing.</p>
      <p>
        An operator makes an account an admin with <code>bastion user role --tenant &lt;tenant id&gt; --email &lt;email&gt; --role admin</code>.
      </p>
    </section>
  );
}

export function ErrorNote({ error }: { error: unknown }) {
  if (error instanceof ApiError && error.status === 403) return <AdminsOnly />;
  const message = error instanceof Error ? error.message : String(error);
  return (
    <p className="notice notice-error" role="alert">
      {message}
    </p>
  );
}

/** Loading, the error, or the content for the data. */
export function Show<T>({ loaded, children, label }: { loaded: Loaded<T>; label: string; children: (data: T) => ReactNode }) {
  if (loaded.error !== undefined) return <ErrorNote error={loaded.error} />;
  if (loaded.data === undefined) {
    return (
      <p role="status" className="muted">
        Loading {label}…
      </p>
    );
  }
  return <>{children(loaded.data)}</>;
}

export function Status({ value }: { value: string | null | undefined }) {
  const v = value ?? 'none';
  return <span className={`status status-${v.replace(/[^a-z_]/gi, '')}`}>{v.replace(/_/g, ' ')}</span>;
}

export function When({ at }: { at: string | null | undefined }) {
  return at ? <time dateTime={at}>{formatDate(at)}</time> : <span className="muted">—</span>;
}

/** A page's heading, focused when the page opens (screen readers announce the new page). */
export function PageTitle({ children }: { children: ReactNode }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    ref.current?.focus();
  }, []);
  return (
    <h1 ref={ref} tabIndex={-1}>
      {children}
    </h1>
  );
}

/** A definition list of label/value pairs. */
export function Facts({ items }: { items: Array<[string, ReactNode]> }) {
  return (
    <dl className="facts">
      {items.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{value === null || value === undefined || value === '' ? <span className="muted">—</span> : value}</dd>
        </div>
      ))}
    </dl>
  );
}

export function Mono({ children }: { children: ReactNode }) {
  return <code className="mono">{children}</code>;
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="muted">{children}</p>;
}

/** Newer / Older paging of an offset list, newest first: `go(offset)` loads that page. */
export function Pager({ offset, shown, total, pageSize, go }: { offset: number; shown: number; total: number; pageSize: number; go: (offset: number) => void }) {
  return (
    <nav aria-label="Pages" className="pager">
      <button type="button" className="secondary" disabled={offset === 0} onClick={() => go(Math.max(0, offset - pageSize))}>
        Newer
      </button>
      <button type="button" className="secondary" disabled={offset + shown >= total} onClick={() => go(offset + pageSize)}>
        Older
      </button>
    </nav>
  );
}
