import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { Access } from '../../../platform/http/access.js';
import { contextOf } from '../../../platform/http/context.js';
import { EmptyBody, errorResponses } from '../../../platform/http/schemas.js';
import { sessionMeta } from '../routes.js';
import { TokenPair } from '../schemas.js';
import { LoginFinishBody, LoginOptions, Passkey, PasskeyIdParam, PasskeyList, RegistrationBeginBody, RegistrationFinishBody, RegistrationOptions } from './schemas.js';
import type { PasskeyService } from './service.js';

/** Begun and finished passkey logins per client address per minute (a begin stores a challenge). */
export const PASSKEY_LOGIN_PER_IP = 30;

export function passkeyRoutes(app: FastifyInstance, deps: { passkeys: PasskeyService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { passkeys } = deps;
  const tags = ['Authentication'];

  r.get(
    '/auth/passkeys',
    {
      config: { auth: Access.user },
      schema: { tags, summary: "List the caller's passkeys", response: { 200: PasskeyList, ...errorResponses(403) } },
    },
    async (request) => ({ data: await passkeys.list(request.tenant.id, contextOf(request, Access.user).userId) }),
  );

  r.post(
    '/auth/passkeys/register/begin',
    {
      config: { auth: Access.user },
      schema: {
        tags,
        summary: 'Begin registering a passkey to the caller',
        description: 'Answers the WebAuthn creation options with a single-use challenge (5 minutes). The relying party is the host of the tenant\'s app URL.',
        body: RegistrationBeginBody,
        response: { 201: RegistrationOptions, ...errorResponses(403, 404, 409) },
      },
    },
    async (request, reply) => {
      const { userId } = contextOf(request, Access.user);
      return reply.status(201).send(await passkeys.beginRegistration(request.tenant, userId, request.body.name));
    },
  );

  r.post(
    '/auth/passkeys/register/finish',
    {
      config: { auth: Access.user },
      schema: {
        tags,
        summary: "Finish a passkey registration with the browser's answer",
        body: RegistrationFinishBody,
        response: { 201: Passkey, ...errorResponses(403, 409) },
      },
    },
    async (request, reply) => {
      const { userId } = contextOf(request, Access.user);
      const view = await passkeys.finishRegistration(request.tenant, userId, request.body.credential, request.body.name);
      return reply.status(201).send(view);
    },
  );

  r.delete(
    '/auth/passkeys/:passkeyId',
    {
      config: { auth: Access.user },
      schema: { tags, summary: 'Remove one of the caller\'s passkeys', params: PasskeyIdParam, body: EmptyBody, response: { 204: Type.Null({ description: 'Removed' }), ...errorResponses(403, 404) } },
    },
    async (request, reply) => {
      await passkeys.remove(request.tenant.id, contextOf(request, Access.user).userId, request.params.passkeyId);
      return reply.status(204).send(null);
    },
  );

  const beginLimit = { name: 'passkey-login-begin', max: PASSKEY_LOGIN_PER_IP, windowMs: 60_000, message: 'Too many passkey logins begun; retry later' };
  const finishLimit = { name: 'passkey-login-finish', max: PASSKEY_LOGIN_PER_IP, windowMs: 60_000, message: 'Too many passkey login attempts; retry later' };
  r.post(
    '/auth/passkeys/login/begin',
    {
      config: { auth: Access.public, rateLimit: beginLimit },
      schema: {
        tags,
        summary: 'Begin a passkey login (no email, no password)',
        description: 'Answers the WebAuthn request options with a single-use challenge (5 minutes) and no credentials listed: the authenticator offers the user\'s discoverable passkeys.',
        body: EmptyBody,
        response: { 201: LoginOptions, ...errorResponses(429) },
      },
    },
    async (request, reply) => reply.status(201).send(await passkeys.beginLogin(request.tenant)),
  );

  r.post(
    '/auth/passkeys/login/finish',
    {
      config: { auth: Access.public, rateLimit: finishLimit },
      schema: {
        tags,
        summary: "Finish a passkey login with the browser's assertion",
        description: 'Answers the token pair of POST /auth/login. A passkey is two factors (the device, and the user verified on it): no email second factor is asked.',
        body: LoginFinishBody,
        response: { 201: TokenPair, ...errorResponses(429) },
      },
    },
    async (request, reply) => reply.status(201).send(await passkeys.finishLogin(request.tenant, request.body.credential, sessionMeta(request))),
  );
}
