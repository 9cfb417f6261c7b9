import { useState, type FormEvent } from 'react';
import type { TokenPair } from '@bastion/client';
import { anonymousClient, describeError, isTokenPair, rememberedTenant, type Session } from './api.ts';

type Step = { kind: 'password' } | { kind: 'code'; challengeToken: string; method: string; tenantId: string; email: string };

const toBytes = (s: string) => Uint8Array.from(atob(s.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((s.length + 3) % 4)), (c) => c.charCodeAt(0));
const toB64u = (b: ArrayBuffer) =>
  btoa(String.fromCharCode(...new Uint8Array(b)))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

/**
 * Signs an account in with the API's own routes: email and password (then the mailed or TOTP code
 * when 2FA is on), or a passkey. `onSignedIn` gets the pair; the console then checks the role.
 */
export function SignIn({ onSignedIn, notice }: { onSignedIn: (pair: TokenPair, tenantId: string, email: string) => Promise<void>; notice?: string }) {
  const [tenantId, setTenantId] = useState(rememberedTenant);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [step, setStep] = useState<Step>({ kind: 'password' });
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await work();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  const submitPassword = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const tenant = tenantId.trim();
      const res = await anonymousClient(tenant).POST('/auth/email/login', { body: { email, password } });
      if (!res.data) throw new Error(describeError(res.error));
      setPassword('');
      if (isTokenPair(res.data)) return onSignedIn(res.data, tenant, email);
      setStep({ kind: 'code', challengeToken: res.data.challengeToken, method: res.data.method ?? 'email', tenantId: tenant, email });
    });
  };

  const submitCode = (event: FormEvent) => {
    event.preventDefault();
    if (step.kind !== 'code') return;
    void run(async () => {
      const res = await anonymousClient(step.tenantId).POST('/auth/2fa/verify', { body: { challengeToken: step.challengeToken, code: code.trim() } });
      if (!res.data) throw new Error(describeError(res.error));
      setCode('');
      return onSignedIn(res.data, step.tenantId, step.email);
    });
  };

  const passkey = () =>
    void run(async () => {
      const tenant = tenantId.trim();
      const api = anonymousClient(tenant);
      const begin = await api.POST('/auth/passkeys/login/begin', { body: {} });
      if (!begin.data) throw new Error(describeError(begin.error));
      const options = begin.data.options as unknown as { challenge: string; allowCredentials?: Array<{ id: string; type: 'public-key' }> } & Record<string, unknown>;
      const got = (await navigator.credentials.get({
        publicKey: {
          ...(options as unknown as PublicKeyCredentialRequestOptions),
          challenge: toBytes(options.challenge),
          allowCredentials: (options.allowCredentials ?? []).map((c) => ({ ...c, id: toBytes(c.id) })),
        },
      })) as PublicKeyCredential | null;
      if (!got) throw new Error('No passkey was chosen');
      const response = got.response as AuthenticatorAssertionResponse;
      const finish = await api.POST('/auth/passkeys/login/finish', {
        body: {
          credential: {
            id: got.id,
            rawId: toB64u(got.rawId),
            type: 'public-key',
            clientExtensionResults: got.getClientExtensionResults() as Record<string, never>,
            response: {
              clientDataJSON: toB64u(response.clientDataJSON),
              authenticatorData: toB64u(response.authenticatorData),
              signature: toB64u(response.signature),
              ...(response.userHandle ? { userHandle: toB64u(response.userHandle) } : {}),
            },
          },
        } as never,
      });
      if (!finish.data) throw new Error(describeError(finish.error));
      if (!isTokenPair(finish.data)) throw new Error('The passkey sign-in did not end in a session');
      return onSignedIn(finish.data, tenant, '');
    });

  return (
    <main className="signin" id="main">
      <h1>Bastion console</h1>
      <p className="muted">For the tenant’s admins: review KYC and accreditation cases, look up users, follow events.</p>
      {notice && (
        <div className="notice notice-error" role="alert">
          {notice}
        </div>
      )}
      {step.kind === 'password' ? (
        <form onSubmit={submitPassword} aria-label="Sign in">
          <label htmlFor="tenant">Tenant ID</label>
          <input id="tenant" name="tenant" required pattern="[0-9a-fA-F-]{36}" value={tenantId} onChange={(e) => setTenantId(e.target.value)} autoComplete="organization" spellCheck={false} />
          <label htmlFor="email">Email</label>
          <input id="email" name="email" type="email" required value={email} onChange={(e) => setEmail(e.target.value)} autoComplete="username" />
          <label htmlFor="password">Password</label>
          <input id="password" name="password" type="password" required value={password} onChange={(e) => setPassword(e.target.value)} autoComplete="current-password" />
          <button type="submit" disabled={busy}>
            Sign in
          </button>
          {typeof PublicKeyCredential !== 'undefined' && (
            <button type="button" className="secondary" disabled={busy || !/^[0-9a-fA-F-]{36}$/.test(tenantId.trim())} onClick={passkey}>
              Sign in with a passkey
            </button>
          )}
        </form>
      ) : (
        <form onSubmit={submitCode} aria-label="Two-factor code">
          <p>{step.method === 'totp' ? 'Enter the 6-digit code from your authenticator app (or a recovery code).' : 'Enter the 6-digit code mailed to you.'}</p>
          <label htmlFor="code">Code</label>
          <input id="code" name="code" required inputMode="numeric" autoComplete="one-time-code" value={code} onChange={(e) => setCode(e.target.value)} autoFocus />
          <button type="submit" disabled={busy}>
            Verify
          </button>
          <button type="button" className="secondary" onClick={() => setStep({ kind: 'password' })}>
            Back
          </button>
        </form>
      )}
      {error && (
        <p className="notice notice-error" role="alert">
          {error}
        </p>
      )}
    </main>
  );
}

/** The session the console keeps once the account is known. */
export function sessionOf(pair: TokenPair, tenantId: string, email: string, userId: string): Session {
  return { tenantId, accessToken: pair.accessToken, refreshToken: pair.refreshToken, email, userId };
}
