import { Type, type TSchema } from 'typebox';
import { providerAnswer, type ProviderAnswer } from '../../../platform/http/provider-answer.js';
import { ProviderError } from '../../../platform/providers/errors.js';
import { signWithKeyCredential, requestNonce } from './credentials.js';
import {
  APP_ID_HEADER,
  CUSTODY_B_PATHS as P,
  NONCE_HEADER,
  USER_ACTION_HEADER,
  type CustodyBConnection,
  type CustodyBProtocol,
  type UserActionChallenge,
  type UserActionRequest,
} from '../port.js';

const TIMEOUT_MS = 15_000;

// What Bastion reads of custody-b's answers (docs/providers.md): checked before use, so an
// answer of another shape is a provider error (malformed answer, 502), never a crash.
const Str = Type.String({ minLength: 1, maxLength: 5000 });
const Arr = Type.Array(Type.Unknown());
const Obj = Type.Object({});
const PublicKeyCredentials = Type.Array(Type.Object({ type: Type.Literal('public-key'), id: Str }));
const A = {
  registrationChallenge: providerAnswer(
    'custody-b registration challenge',
    Type.Object({
      user: Type.Object({ id: Str, displayName: Type.String(), name: Type.String() }),
      temporaryAuthenticationToken: Str,
      challenge: Str,
      rp: Type.Optional(Type.Object({ id: Type.String(), name: Type.String() })),
      supportedCredentialKinds: Obj,
      authenticatorSelection: Obj,
      attestation: Type.String(),
      pubKeyCredParams: Arr,
      excludeCredentials: PublicKeyCredentials,
    }),
  ),
  registration: providerAnswer(
    'custody-b registration',
    Type.Object({ credential: Type.Object({ uuid: Str, kind: Str, name: Type.String() }), user: Type.Object({ id: Str, username: Type.String(), orgId: Type.String() }) }),
  ),
  login: providerAnswer('custody-b login', Type.Object({ token: Str })),
  actionChallenge: providerAnswer(
    'custody-b user-action challenge',
    Type.Object({
      challenge: Str,
      challengeIdentifier: Str,
      supportedCredentialKinds: Arr,
      userVerification: Type.String(),
      allowCredentials: Type.Object({ key: Type.Optional(PublicKeyCredentials), webauthn: Type.Optional(PublicKeyCredentials) }),
    }),
  ),
  userAction: providerAnswer('custody-b user action', Type.Object({ userAction: Str })),
  wallet: providerAnswer('custody-b wallet', Type.Object({ id: Str, network: Str, address: Str, status: Type.String() })),
  signature: providerAnswer(
    'custody-b signature',
    Type.Object({
      id: Str,
      status: Type.String(),
      signature: Type.Optional(Type.Object({ r: Str, s: Str, recid: Type.Optional(Type.Integer()), encoded: Type.Optional(Type.String()) })),
    }),
  ),
  broadcast: providerAnswer('custody-b transaction', Type.Object({ id: Str, status: Type.String(), txHash: Type.Optional(Type.String()) })),
};

/** Joins the base URL (which may carry a path prefix) and an API path. */
function urlOf(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}${path}`;
}

/**
 * The custody-b adapter for one connection: the provider's HTTP API (docs/providers.md) with
 * the application id, a bearer token (the service's, or the user's delegated one), a request
 * nonce on every call, and the user-action token on writes. The service's own user actions
 * (delegated registration and login) are signed here with the service account's key
 * credential. A network failure or 5xx is `ProviderError` unreachable; a 4xx is unauthorized,
 * not found or refused with the provider's status; a 2xx of another shape is a malformed answer.
 */
export function createCustodyBClient(conn: CustodyBConnection, options: { fetch?: typeof fetch; now?: () => Date } = {}): CustodyBProtocol {
  const doFetch = options.fetch ?? fetch;
  const now = options.now ?? (() => new Date());

  async function call<T>(shape: ProviderAnswer<TSchema>, method: string, path: string, token: string, body?: unknown, userAction?: string): Promise<T> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${token}`,
      [APP_ID_HEADER]: conn.appId,
      [NONCE_HEADER]: requestNonce(now()),
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (userAction) headers[USER_ACTION_HEADER] = userAction;
    let res: Response;
    try {
      res = await doFetch(urlOf(conn.baseUrl, path), {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        redirect: 'error',
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (error) {
      throw new ProviderError('unreachable', `custody-b unreachable: ${error instanceof Error ? error.message : 'no answer'}`);
    }
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : {};
    } catch {
      if (!res.ok) throw ProviderError.fromStatus(res.status, `custody-b answered ${res.status}: ${res.statusText}`);
      throw new ProviderError('malformed_answer', 'custody-b answered something that is not JSON', res.status);
    }
    if (!res.ok) {
      const p = (parsed ?? {}) as { error?: { message?: unknown }; message?: unknown };
      const message = typeof p.error?.message === 'string' ? p.error.message : typeof p.message === 'string' ? p.message : res.statusText;
      throw ProviderError.fromStatus(res.status, `custody-b answered ${res.status}: ${message}`);
    }
    return shape.parse(parsed, (detail) => new ProviderError('malformed_answer', detail, res.status)) as T;
  }

  /** A user action of the service account itself: challenge, its own signature, token. */
  async function serviceAction<T>(shape: ProviderAnswer<TSchema>, request: UserActionRequest): Promise<T> {
    const payload = JSON.stringify(request.body);
    const challenge = await call<UserActionChallenge>(A.actionChallenge, 'POST', P.actionInit, conn.serviceToken, {
      userActionHttpMethod: request.method,
      userActionHttpPath: request.path,
      userActionPayload: payload,
      userActionServerKind: 'Api',
    });
    const firstFactor = signWithKeyCredential(challenge.challenge, conn.serviceCredId, conn.servicePrivateKeyPem);
    const { userAction } = await call<{ userAction: string }>(A.userAction, 'POST', P.action, conn.serviceToken, {
      challengeIdentifier: challenge.challengeIdentifier,
      firstFactor,
    });
    return call<T>(shape, request.method, request.path, conn.serviceToken, request.body, userAction);
  }

  return {
    delegatedRegistrationChallenge: (input) =>
      serviceAction(A.registrationChallenge, { method: 'POST', path: P.delegatedRegistration, body: { email: input.email, kind: 'EndUser', externalId: input.externalId } }),
    register: (temporaryAuthenticationToken, credential) => call(A.registration, 'POST', P.registration, temporaryAuthenticationToken, { firstFactorCredential: credential }),
    delegatedLogin: (username) => serviceAction(A.login, { method: 'POST', path: P.delegatedLogin, body: { username } }),
    userActionInit: (userToken, request) =>
      call(A.actionChallenge, 'POST', P.actionInit, userToken, {
        userActionHttpMethod: request.method,
        userActionHttpPath: request.path,
        userActionPayload: JSON.stringify(request.body),
        userActionServerKind: 'Api',
      }),
    userActionSign: (userToken, signed) => call(A.userAction, 'POST', P.action, userToken, signed),
    createWallet: (userToken, userAction, body) => call(A.wallet, 'POST', P.wallets, userToken, body, userAction),
    generateSignature: (userToken, userAction, walletId, body) => call(A.signature, 'POST', P.signatures(walletId), userToken, body, userAction),
    broadcastTransaction: (userToken, userAction, walletId, body) => call(A.broadcast, 'POST', P.transactions(walletId), userToken, body, userAction),
  };
}
