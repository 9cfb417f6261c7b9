import { useMemo, useState } from 'react';
import type { TokenPair } from '@bastion/client';
import { adminClient, anonymousClient, createSessionClient, loadSession, saveSession, type Session } from './api.ts';
import { Link, navigate, usePath } from './router.tsx';
import { SignIn, sessionOf } from './SignIn.tsx';
import { AdminsOnly, Ctx } from './ui.tsx';
import { Queue } from './pages/Queue.tsx';
import { KycCase } from './pages/KycCase.tsx';
import { AccreditationCase } from './pages/AccreditationCase.tsx';
import { Users } from './pages/Users.tsx';
import { UserDetail } from './pages/UserDetail.tsx';
import { Events } from './pages/Events.tsx';
import { Audit } from './pages/Audit.tsx';
import { TransferDetail, Transfers } from './pages/Transfers.tsx';

const NAV: Array<[string, string]> = [
  ['/', 'Review queue'],
  ['/users', 'Users'],
  ['/transfers', 'Transfers'],
  ['/events', 'Event endpoints'],
  ['/audit', 'Audit log'],
];

function Page({ path }: { path: string }) {
  const parts = path.split('/').filter(Boolean);
  const [first, id] = parts;
  if (!first) return <Queue />;
  if (first === 'kyc' && id) return <KycCase kycId={id} />;
  if (first === 'accreditations' && id) return <AccreditationCase id={id} />;
  if (first === 'users' && id) return <UserDetail userId={id} />;
  if (first === 'users') return <Users />;
  if (first === 'transfers' && id) return <TransferDetail id={id} />;
  if (first === 'transfers') return <Transfers />;
  if (first === 'events') return <Events />;
  if (first === 'audit') return <Audit />;
  return (
    <>
      <h1>Not found</h1>
      <p>
        The console has no page here. <Link to="/">Back to the review queue</Link>.
      </p>
    </>
  );
}

/**
 * The console: sign in, check the account is an admin of the tenant (GET /users/me), then the
 * pages, each calling the public API with the admin's token. A non-admin account is signed out
 * again at once and shown "Admins only"; nothing else renders for it.
 */
export function App() {
  const [session, setSession] = useState<Session | undefined>(loadSession);
  const [refused, setRefused] = useState<string>();
  const path = usePath();

  const update = (next: Session | undefined) => {
    saveSession(next);
    setSession(next);
  };
  const client = useMemo(() => (session ? adminClient(session, update) : undefined), [session?.tenantId, session?.userId]);

  const onSignedIn = async (pair: TokenPair, tenantId: string, email: string) => {
    const me = await createSessionClient(tenantId, pair.accessToken).GET('/users/me');
    if (!me.data) throw new Error('The service did not say who signed in');
    if (me.data.role !== 'admin') {
      // Not an admin: end the session just made, show nothing but the refusal.
      await anonymousClient(tenantId).POST('/auth/logout', { headers: { authorization: `Bearer ${pair.accessToken}` }, body: {} });
      setRefused(me.data.email);
      return;
    }
    setRefused(undefined);
    update(sessionOf(pair, tenantId, me.data.email || email, me.data.id));
  };

  const signOut = () => {
    if (session) void anonymousClient(session.tenantId).POST('/auth/logout', { headers: { authorization: `Bearer ${session.accessToken}` }, body: {} });
    update(undefined);
    navigate('/');
  };

  if (!session || !client) {
    return (
      <>
        {refused && (
          <div className="refused">
            <AdminsOnly />
            <p className="muted">{refused} was signed out again.</p>
          </div>
        )}
        <SignIn onSignedIn={onSignedIn} />
      </>
    );
  }

  const section = `/${path.split('/').filter(Boolean)[0] ?? ''}`;
  const active = (to: string) => (to === '/' ? section === '/' || section === '/kyc' || section === '/accreditations' : section === to);
  return (
    <Ctx.Provider value={{ client, session, signOut }}>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">Bastion console</span>
        <nav aria-label="Console">
          <ul>
            {NAV.map(([to, label]) => (
              <li key={to}>
                <Link to={to} aria-current={active(to) ? 'page' : undefined}>
                  {label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <span className="who">
          <span className="muted">Signed in as</span> {session.email}
          <button type="button" className="secondary small" onClick={signOut}>
            Sign out
          </button>
        </span>
      </header>
      <main id="main" key={path}>
        <Page path={path} />
      </main>
    </Ctx.Provider>
  );
}
