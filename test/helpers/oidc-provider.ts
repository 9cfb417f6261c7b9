import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

export interface TestAccount {
  email?: string;
  email_verified?: boolean;
  name?: string;
}

export interface TestOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Accounts by subject; add or change them between tests. */
  accounts: Map<string, TestAccount>;
  /** Serve a JWKS whose key (same kid) did not sign the tokens, as an impostor would. */
  serveForeignJwks: boolean;
  close(): Promise<void>;
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/**
 * A real OpenID provider (`oidc-provider`) on a loopback port, with one confidential client
 * whose redirect URI is `redirectUri`. Its login and consent interactions are tiny JSON/form
 * endpoints a test drives like a browser:
 *   GET  /interaction/:uid          -> { uid, prompt }
 *   POST /interaction/:uid/login    form login=<subject>
 *   POST /interaction/:uid/confirm  grants the requested scopes
 *   POST /interaction/:uid/abort    the person refuses (error=access_denied)
 */
export async function startOidcProvider(options: { redirectUri: string }): Promise<TestOidcProvider> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'bastion-test-client';
  const clientSecret = `secret-${crypto.randomUUID()}`;
  const accounts = new Map<string, TestAccount>();
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const signingKey = { ...(await exportJWK(privateKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
  const { publicKey: foreignKey } = await generateKeyPair('RS256', { extractable: true });
  const foreignJwks = JSON.stringify({ keys: [{ ...(await exportJWK(foreignKey)), kid: 'test-key', alg: 'RS256', use: 'sig' }] });

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [options.redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    jwks: { keys: [signingKey] },
    cookies: { keys: [`cookie-${crypto.randomUUID()}`] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    features: { devInteractions: { enabled: false } },
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    findAccount: async (_ctx, sub) => {
      const account = accounts.get(sub);
      if (!account) return undefined;
      return { accountId: sub, claims: async () => ({ sub, ...account }) };
    },
  });
  provider.on('server_error', (_ctx, error) => console.error('oidc-provider error', error));
  const callback = provider.callback();

  const interaction = async (req: IncomingMessage, res: ServerResponse, uid: string, action?: string) => {
    const details = await provider.interactionDetails(req, res);
    if (details.uid !== uid) throw new Error('interaction mismatch');
    if (!action) {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ uid, prompt: details.prompt.name }));
      return;
    }
    if (action === 'login') {
      const form = await readForm(req);
      await provider.interactionFinished(req, res, { login: { accountId: form.get('login') ?? '' } }, { mergeWithLastSubmission: false });
      return;
    }
    if (action === 'confirm') {
      const accountId = details.session?.accountId;
      const clientIdOf = details.params.client_id;
      if (typeof accountId !== 'string' || typeof clientIdOf !== 'string') throw new Error('no session to consent for');
      const grant = new provider.Grant({ accountId, clientId: clientIdOf });
      grant.addOIDCScope(String(details.params.scope));
      const grantId = await grant.save();
      await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
      return;
    }
    if (action === 'abort') {
      await provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'The person refused' }, { mergeWithLastSubmission: false });
      return;
    }
    res.statusCode = 404;
    res.end();
  };

  const handle: TestOidcProvider = {
    issuer,
    clientId,
    clientSecret,
    accounts,
    serveForeignJwks: false,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };

  server.on('request', (req, res) => {
    if (handle.serveForeignJwks && req.url === '/jwks') {
      res.setHeader('content-type', 'application/jwk-set+json');
      res.end(foreignJwks);
      return;
    }
    const match = /^\/interaction\/([^/?]+)(?:\/(login|confirm|abort))?/.exec(req.url ?? '');
    if (!match?.[1]) {
      void callback(req, res);
      return;
    }
    interaction(req, res, match[1], match[2]).catch((error: unknown) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  });

  return handle;
}

/**
 * A minimal browser: follows redirects by hand and keeps the provider's cookies, so a test
 * sees each hop (the provider's pages, then the redirect to Bastion's callback).
 */
export class TestBrowser {
  private readonly cookies = new Map<string, string>();

  constructor(private readonly providerOrigin: string) {}

  private cookieHeader(url: URL): Record<string, string> {
    if (url.origin !== this.providerOrigin || this.cookies.size === 0) return {};
    return { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') };
  }

  async request(url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<Response> {
    const target = new URL(url);
    const response = await fetch(target, {
      method: init.method ?? 'GET',
      redirect: 'manual',
      headers: { ...this.cookieHeader(target), ...(init.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      body: init.form ? new URLSearchParams(init.form).toString() : undefined,
    });
    if (target.origin === this.providerOrigin) {
      for (const line of response.headers.getSetCookie()) {
        const [pair] = line.split(';');
        const eq = pair?.indexOf('=') ?? -1;
        if (!pair || eq < 0) continue;
        const value = pair.slice(eq + 1);
        if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(pair.slice(0, eq));
        else this.cookies.set(pair.slice(0, eq), value);
      }
    }
    return response;
  }

  /** Follows redirects while they stay at the provider; answers the first hop that leaves it or is a page. */
  async follow(url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<{ url: string; response: Response }> {
    let current = url;
    let response = await this.request(current, init);
    for (let hops = 0; hops < 10; hops++) {
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || !location) return { url: current, response };
      const next = new URL(location, current);
      if (next.origin !== this.providerOrigin) return { url: next.toString(), response };
      current = next.toString();
      response = await this.request(current);
    }
    throw new Error('too many redirects');
  }

  /**
   * Logs `subject` in at the provider and consents, starting from the authorization URL.
   * Answers the URL the provider sends the browser to (Bastion's callback with code and state).
   */
  async signIn(authorizationUrl: string, subject: string, decision: 'confirm' | 'abort' = 'confirm'): Promise<string> {
    let hop = await this.follow(authorizationUrl);
    for (let step = 0; step < 4; step++) {
      const page = new URL(hop.url);
      if (page.origin !== this.providerOrigin) return hop.url;
      const { uid, prompt } = (await hop.response.json()) as { uid: string; prompt: string };
      const action = prompt === 'login' ? (decision === 'abort' ? 'abort' : 'login') : decision;
      hop = await this.follow(`${this.providerOrigin}/interaction/${uid}/${action}`, { method: 'POST', form: { login: subject } });
    }
    throw new Error('the provider never redirected back');
  }
}
