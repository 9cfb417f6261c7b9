import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { CredentialAssertion, CredentialAttestation } from '../../providers/custody-b/port.js';
import {
  apiPath,
  authenticate,
  CHALLENGE_TTL_MS,
  hashToken,
  newChallenge,
  randomId,
  randomToken,
  REGISTRATION_TTL_MS,
  requireUserAction,
  SANDBOX_PREFIX,
  SandboxError,
  sendError,
  USER_ACTION_TTL_MS,
  USER_TOKEN_TTL_MS,
  type SandboxContext,
} from './context.js';
import { CredentialRejected, verifyAssertion, verifyAttestation } from './verify.js';

const METHODS = ['POST', 'PUT', 'DELETE', 'GET'];
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown, max = 2048): v is string => typeof v === 'string' && v.length > 0 && v.length <= max;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function bodyOf(request: FastifyRequest): Record<string, unknown> {
  if (!isObject(request.body)) throw new SandboxError(400, 'Bad request: the body must be a JSON object');
  return request.body;
}

function attestationOf(value: unknown): CredentialAttestation {
  if (!isObject(value) || (value.credentialKind !== 'Key' && value.credentialKind !== 'Fido2') || !isObject(value.credentialInfo)) {
    throw new SandboxError(400, 'Bad request: firstFactorCredential must be a Key or Fido2 credential');
  }
  const i = value.credentialInfo;
  if (!str(i.credId, 512) || !str(i.clientData, 8192) || !str(i.attestationData, 16384)) throw new SandboxError(400, 'Bad request: credentialInfo needs credId, clientData and attestationData');
  return { credentialKind: value.credentialKind, credentialInfo: { credId: i.credId, clientData: i.clientData, attestationData: i.attestationData }, credentialName: str(value.credentialName, 200) ? value.credentialName : undefined };
}

function assertionOf(value: unknown): CredentialAssertion {
  if (!isObject(value) || !isObject(value.credentialAssertion)) throw new SandboxError(400, 'Bad request: firstFactor must be a Key or Fido2 assertion');
  const a = value.credentialAssertion;
  if (!str(a.credId, 512) || !str(a.clientData, 8192) || !str(a.signature, 4096)) throw new SandboxError(400, 'Bad request: credentialAssertion needs credId, clientData and signature');
  if (value.kind === 'Key') return { kind: 'Key', credentialAssertion: { credId: a.credId, clientData: a.clientData, signature: a.signature } };
  if (value.kind === 'Fido2' && str(a.authenticatorData, 8192)) {
    return { kind: 'Fido2', credentialAssertion: { credId: a.credId, clientData: a.clientData, signature: a.signature, authenticatorData: a.authenticatorData, userHandle: str(a.userHandle, 512) ? a.userHandle : undefined } };
  }
  throw new SandboxError(400, 'Bad request: firstFactor.kind must be Key or Fido2 (with authenticatorData)');
}

/** The provider's authentication API: delegated registration and login, user actions. */
export function authEndpoints(app: FastifyInstance, ctx: SandboxContext): void {
  const { store, options } = ctx;
  const now = () => options.clock.now();
  const after = (ms: number) => new Date(now().getTime() + ms);

  const route = (path: string, handler: (request: FastifyRequest) => Promise<unknown>) =>
    app.post(`${SANDBOX_PREFIX}${path}`, { schema: { hide: true } }, async (request, reply) => {
      try {
        return reply.code(200).send(await handler(request));
      } catch (error) {
        return sendError(reply, error);
      }
    });

  route('/auth/action/init', async (request) => {
    const caller = await authenticate(ctx, request, ['service', 'user']);
    const body = bodyOf(request);
    const method = body.userActionHttpMethod;
    if (typeof method !== 'string' || !METHODS.includes(method)) throw new SandboxError(400, 'Bad request: userActionHttpMethod must be POST, PUT, DELETE or GET');
    if (!str(body.userActionHttpPath, 1024) || !body.userActionHttpPath.startsWith('/')) throw new SandboxError(400, 'Bad request: userActionHttpPath must be a path');
    if (typeof body.userActionPayload !== 'string' || body.userActionPayload.length > 256 * 1024) throw new SandboxError(400, 'Bad request: userActionPayload must be the JSON body, as a string');
    const creds = await store.credentialsOf(caller.orgId, caller.userId);
    const challenge = newChallenge();
    const challengeIdentifier = randomToken('uac');
    await store.insertChallenge({
      id: challengeIdentifier,
      orgId: caller.orgId,
      userId: caller.userId,
      kind: 'action',
      challenge,
      method,
      path: body.userActionHttpPath.split('?')[0]!,
      payload: body.userActionPayload,
      expiresAt: after(CHALLENGE_TTL_MS),
      createdAt: now(),
    });
    return {
      challenge,
      challengeIdentifier,
      supportedCredentialKinds: [
        { kind: 'Key', factor: 'either', requiresSecondFactor: false },
        { kind: 'Fido2', factor: 'either', requiresSecondFactor: false },
      ],
      userVerification: 'preferred',
      attestation: 'none',
      allowCredentials: {
        key: creds.filter((c) => c.kind === 'Key').map((c) => ({ type: 'public-key' as const, id: c.credId })),
        webauthn: creds.filter((c) => c.kind === 'Fido2').map((c) => ({ type: 'public-key' as const, id: c.credId })),
      },
      externalAuthenticationUrl: '',
    };
  });

  route('/auth/action', async (request) => {
    const caller = await authenticate(ctx, request, ['service', 'user']);
    const body = bodyOf(request);
    if (!str(body.challengeIdentifier, 256)) throw new SandboxError(400, 'Bad request: challengeIdentifier is required');
    const firstFactor = assertionOf(body.firstFactor);
    const challenge = await store.challenge(caller.orgId, body.challengeIdentifier);
    if (!challenge || challenge.kind !== 'action') throw new SandboxError(404, 'Not found: no such challenge');
    if (challenge.userId !== caller.userId) throw new SandboxError(403, 'Forbidden: the challenge was issued to another user');
    if (challenge.consumedAt) throw new SandboxError(400, 'Bad request: the challenge was used already');
    if (challenge.expiresAt <= now()) throw new SandboxError(400, 'Bad request: the challenge expired');
    const cred = await store.credential(caller.orgId, firstFactor.credentialAssertion.credId);
    if (!cred || cred.userId !== caller.userId) throw new SandboxError(401, 'Unauthorized: the credential is not one of the user');
    let counter: number;
    try {
      counter = await verifyAssertion(firstFactor, challenge.challenge, cred, ctx.rp());
    } catch (error) {
      if (error instanceof CredentialRejected) throw new SandboxError(401, `Unauthorized: ${error.message}`);
      throw error;
    }
    if (!(await store.consumeChallenge(challenge.id, now()))) throw new SandboxError(400, 'Bad request: the challenge was used already');
    if (counter !== cred.counter) await store.setCounter(caller.orgId, cred.credId, counter);
    const userAction = randomToken('ua');
    await store.insertUserAction({
      tokenHash: hashToken(userAction),
      orgId: caller.orgId,
      userId: caller.userId,
      method: challenge.method!,
      path: challenge.path!,
      payload: challenge.payload!,
      expiresAt: after(USER_ACTION_TTL_MS),
    });
    return { userAction };
  });

  route('/auth/registration/delegated', async (request) => {
    const caller = await authenticate(ctx, request, ['service']);
    await requireUserAction(ctx, request, caller, apiPath(request.url));
    const body = bodyOf(request);
    if (!str(body.email, 320) || !EMAIL.test(body.email)) throw new SandboxError(400, 'Bad request: email is required');
    if (body.kind !== 'EndUser') throw new SandboxError(400, 'Bad request: kind must be EndUser');
    const externalId = str(body.externalId, 256) ? body.externalId : null;
    let user = await store.userByName(caller.orgId, body.email);
    if (user?.status === 'registered') throw new SandboxError(409, 'Conflict: a user with this email is registered already');
    if (!user) {
      const row = { id: randomId('us'), orgId: caller.orgId, kind: 'EndUser' as const, username: body.email, externalId, status: 'pending' as const, createdAt: now() };
      await store.insertUser(row);
      user = row;
    }
    const challenge = newChallenge();
    const temporaryAuthenticationToken = randomToken('reg');
    await store.insertChallenge({ id: randomId('rc'), orgId: caller.orgId, userId: user.id, kind: 'registration', challenge, expiresAt: after(REGISTRATION_TTL_MS), createdAt: now() });
    await store.insertToken({ tokenHash: hashToken(temporaryAuthenticationToken), orgId: caller.orgId, userId: user.id, kind: 'registration', expiresAt: after(REGISTRATION_TTL_MS), createdAt: now() });
    const rp = ctx.rp();
    return {
      user: { id: user.id, displayName: user.username, name: user.username },
      temporaryAuthenticationToken,
      challenge,
      rp: { id: rp.id, name: 'custody-b sandbox' },
      supportedCredentialKinds: { firstFactor: ['Fido2', 'Key'], secondFactor: ['Fido2', 'Key'] },
      authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'preferred' },
      attestation: 'direct',
      pubKeyCredParams: [
        { type: 'public-key', alg: -7 },
        { type: 'public-key', alg: -8 },
      ],
      excludeCredentials: [],
      otpUrl: '',
    };
  });

  route('/auth/registration', async (request) => {
    const caller = await authenticate(ctx, request, ['registration']);
    const body = bodyOf(request);
    const attestation = attestationOf(body.firstFactorCredential);
    const challenge = await store.openRegistrationChallenge(caller.orgId, caller.userId, now());
    if (!challenge) throw new SandboxError(401, 'Unauthorized: the registration challenge expired or was used');
    let credential;
    try {
      credential = await verifyAttestation(attestation, challenge.challenge, ctx.rp());
    } catch (error) {
      if (error instanceof CredentialRejected) throw new SandboxError(401, `Unauthorized: ${error.message}`);
      throw error;
    }
    if (await store.credential(caller.orgId, credential.credId)) throw new SandboxError(409, 'Conflict: this credential is registered already');
    if (!(await store.consumeChallenge(challenge.id, now()))) throw new SandboxError(401, 'Unauthorized: the registration challenge was used');
    const uuid = randomId('cr');
    const name = attestation.credentialName ?? `${credential.kind} credential`;
    await store.insertCredential({ orgId: caller.orgId, credId: credential.credId, uuid, userId: caller.userId, kind: credential.kind, name, publicKey: credential.publicKey, counter: credential.counter, createdAt: now() });
    await store.markRegistered(caller.orgId, caller.userId);
    await store.deleteToken(caller.tokenHash);
    const user = await store.userById(caller.orgId, caller.userId);
    return { credential: { uuid, kind: credential.kind, name }, user: { id: caller.userId, username: user?.username ?? '', orgId: caller.orgId } };
  });

  route('/auth/login/delegated', async (request) => {
    const caller = await authenticate(ctx, request, ['service']);
    await requireUserAction(ctx, request, caller, apiPath(request.url));
    const body = bodyOf(request);
    if (!str(body.username, 320)) throw new SandboxError(400, 'Bad request: username is required');
    const user = await store.userByName(caller.orgId, body.username);
    if (!user || user.kind !== 'EndUser' || user.status !== 'registered') throw new SandboxError(404, 'Not found: no registered end user with this username');
    const token = randomToken('usr');
    await store.insertToken({ tokenHash: hashToken(token), orgId: caller.orgId, userId: user.id, kind: 'user', expiresAt: after(USER_TOKEN_TTL_MS), createdAt: now() });
    return { token };
  });
}
