import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { Access } from '../../platform/http/access.js';
import { contextOf } from '../../platform/http/context.js';
import { CommonErrors } from '../../platform/http/errors.js';
import { errorResponses, MessageResponse } from '../../platform/http/schemas.js';
import type { BackgroundRunner } from '../../platform/module/background.js';
import type { RecoveryService } from './recovery.js';
import { OTP_RESET_TOKEN_TTL_MS } from './recovery.js';
import { sessionMeta } from './routes.js';
import {
  EmailBody,
  EmailCodeBody,
  NewPasswordBody,
  ResetTokenResponse,
  TokenBody,
  TokenPair,
  TokenQuery,
  RecoveryCodesBody,
  RecoveryCodesResponse,
  TwoFactorCodeBody,
  TwoFactorDisableBody,
  TwoFactorEnabled,
  TwoFactorSetupBody,
  TwoFactorSetupResponse,
  TwoFactorStatus,
  TwoFactorVerifyBody,
  Verified,
  VerifyEmailQuery,
} from './schemas.js';
import type { TwoFactorService } from './two-factor.js';
import type { VerificationService } from './verification.js';

/** The one answer of resend, forgot-password and request-otp, whether or not the account exists. */
export const GENERIC_MESSAGE = 'If an account exists for this address, we have sent it an email.';
const PER_IP_LIMIT = 10;
const PER_IP_WINDOW_MS = 10 * 60_000;

export interface FlowDeps {
  verification: VerificationService;
  recovery: RecoveryService;
  twoFactor: TwoFactorService;
  background: BackgroundRunner;
}

export function authFlowRoutes(app: FastifyInstance, deps: FlowDeps): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { verification, recovery, twoFactor, background } = deps;
  const tags = ['Authentication'];
  const verified = { message: 'Email verified', emailVerified: true as const };

  /**
   * Routes that must not reveal whether an account exists: limited per client address, and
   * the lookup and mail happen after the answer, so the answer and its timing are the same.
   */
  const generic = (name: string, work: (request: FastifyRequest<{ Body: { email: string } }>) => Promise<void>) =>
    async (request: FastifyRequest<{ Body: { email: string } }>, reply: import('fastify').FastifyReply) => {
      background.run(name, () => work(request));
      return reply.status(201).send({ message: GENERIC_MESSAGE });
    };
  const genericSchema = (summary: string) => ({ tags, summary, body: EmailBody, response: { 201: MessageResponse, ...errorResponses(429) } });

  r.get(
    '/auth/email/verify',
    {
      config: { auth: Access.public, bearerInHandler: true },
      schema: {
        tags,
        summary: 'Legacy link flow: verify with the single-use token from the mail as the bearer',
        description: 'The bearer is the verification token mailed to the address, never an access token: an access token cannot verify its own email.',
        querystring: VerifyEmailQuery,
        response: { 200: Verified, ...errorResponses(429) },
      },
    },
    async (request) => {
      const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
      if (!match?.[1]) throw CommonErrors.credentialsRequired();
      try {
        await verification.verifyToken(request.tenant, match[1], request.query.email);
      } catch (error) {
        if (error instanceof Error && 'code' in error && error.code === 'ONE_TIME_TOKEN_INVALID') throw CommonErrors.invalidToken();
        throw error;
      }
      return verified;
    },
  );

  r.post(
    '/auth/email/verify-token',
    { config: { auth: Access.public }, schema: { tags, summary: 'Verify the email with the single-use token from the mail', body: TokenBody, response: { 201: Verified, ...errorResponses(429) } } },
    async (request, reply) => {
      await verification.verifyToken(request.tenant, request.body.token);
      return reply.status(201).send(verified);
    },
  );

  r.post(
    '/auth/email/verify-otp',
    {
      config: { auth: Access.public, rateLimit: { name: 'verify-otp', max: 30, windowMs: PER_IP_WINDOW_MS } },
      schema: { tags, summary: 'Verify the email with the 6-digit code from the mail', body: EmailCodeBody, response: { 201: Verified, ...errorResponses(429) } },
    },
    async (request, reply) => {
      await verification.verifyCode(request.tenant, request.body.email, request.body.code);
      return reply.status(201).send(verified);
    },
  );

  const mailing = (name: string) => ({ auth: Access.public, rateLimit: { name, max: PER_IP_LIMIT, windowMs: PER_IP_WINDOW_MS } });
  r.post('/auth/email/resend-verification', { config: mailing('resend-verification'), schema: genericSchema('Send the verification mail again (link and code)') },
    generic('resend-verification', (req) => verification.resend(req.tenant, req.body.email, true)));
  r.post('/auth/email/resend-otp', { config: mailing('resend-otp'), schema: genericSchema('Send a new verification code') },
    generic('resend-otp', (req) => verification.resend(req.tenant, req.body.email, false)));
  r.post('/auth/forgot-password', { config: mailing('forgot-password'), schema: genericSchema('Mail a password reset link (30 minutes, single use)') },
    generic('forgot-password', (req) => recovery.sendLink(req.tenant, req.body.email)));
  r.post('/auth/forgot-password/request-otp', { config: mailing('forgot-password-otp'), schema: genericSchema('Mail a password reset code') },
    generic('forgot-password-otp', (req) => recovery.sendCode(req.tenant, req.body.email)));

  r.post(
    '/auth/forgot-password/verify-otp',
    {
      config: { auth: Access.public, rateLimit: { name: 'reset-otp', max: 30, windowMs: PER_IP_WINDOW_MS } },
      schema: { tags, summary: 'Exchange the reset code for a short-lived reset token', body: EmailCodeBody, response: { 201: ResetTokenResponse, ...errorResponses(429) } },
    },
    async (request, reply) => {
      const resetToken = await recovery.exchangeCode(request.tenant, request.body.email, request.body.code);
      return reply.status(201).send({ resetToken, expiresIn: OTP_RESET_TOKEN_TTL_MS / 1000 });
    },
  );

  r.post(
    '/auth/token-status',
    {
      config: { auth: Access.public, rateLimit: { name: 'token-status', max: 60, windowMs: PER_IP_WINDOW_MS } },
      schema: { tags, summary: 'true when a password-reset token is valid; otherwise 400', body: TokenBody, response: { 201: Type.Literal(true), ...errorResponses(429) } },
    },
    async (request, reply) => {
      return reply.status(201).send(await recovery.tokenIsValid(request.tenant, request.body.token));
    },
  );

  r.put(
    '/auth/reset-password',
    { config: { auth: Access.public }, schema: { tags, summary: 'Set a new password with a reset token; revokes every session', querystring: TokenQuery, body: NewPasswordBody, response: { 200: MessageResponse, ...errorResponses(429, 503) } } },
    async (request) => {
      await recovery.reset(request.tenant, request.query.token, request.body.password);
      return { message: 'Password changed' };
    },
  );

  const userOf = (request: FastifyRequest) => contextOf(request, Access.user).userId;

  r.get(
    '/auth/2fa/status',
    { config: { auth: Access.user }, schema: { tags, summary: 'Two-factor status of the caller', response: { 200: TwoFactorStatus, ...errorResponses(403) } } },
    async (request) => twoFactor.status(request.tenant.id, userOf(request)),
  );

  r.post(
    '/auth/2fa/setup',
    {
      config: { auth: Access.user },
      schema: {
        tags,
        summary: 'Start 2FA setup: a code is mailed (email), or an authenticator key is returned (totp)',
        description:
          'method email: a setup code is mailed. method totp: the answer carries the secret, its otpauth:// URI and a QR code; confirm with POST /auth/2fa/enable. ' +
          'One method at a time: the method already on is a 409; switching from the other one needs `password` (403 when wrong), and enabling replaces it.',
        body: TwoFactorSetupBody,
        response: { 201: TwoFactorSetupResponse, ...errorResponses(403, 409, 503) },
      },
    },
    async (request, reply) => {
      const totp = await twoFactor.setup(request.tenant, userOf(request), request.body.method, request.body.password);
      return reply.status(201).send(totp ?? { message: 'A verification code has been sent to your email address.' });
    },
  );

  r.post(
    '/auth/2fa/enable',
    {
      config: { auth: Access.user },
      schema: {
        tags,
        summary: 'Turn 2FA on with the setup code (mailed, or from the authenticator app)',
        description: 'With TOTP the answer carries ten single-use recovery codes, shown this once. Enabling one method replaces the other.',
        body: TwoFactorCodeBody,
        response: { 201: TwoFactorEnabled, ...errorResponses(403, 409) },
      },
    },
    async (request, reply) => reply.status(201).send(await twoFactor.enable(request.tenant.id, userOf(request), request.body.code, request.body.method)),
  );

  r.post(
    '/auth/2fa/recovery-codes',
    {
      config: { auth: Access.user },
      schema: {
        tags,
        summary: 'Replace the TOTP recovery codes (needs the account password)',
        description: 'Ten new single-use codes, shown once; the old ones stop working. 409 when TOTP is not the active method.',
        body: RecoveryCodesBody,
        response: { 201: RecoveryCodesResponse, ...errorResponses(403, 409, 503) },
      },
    },
    async (request, reply) => reply.status(201).send(await twoFactor.regenerateRecoveryCodes(request.tenant.id, userOf(request), request.body.password)),
  );

  r.post(
    '/auth/2fa/disable',
    { config: { auth: Access.user }, schema: { tags, summary: 'Turn 2FA off (needs the account password)', body: TwoFactorDisableBody, response: { 201: TwoFactorStatus, ...errorResponses(403, 409, 503) } } },
    async (request, reply) => reply.status(201).send(await twoFactor.disable(request.tenant.id, userOf(request), request.body.password)),
  );

  r.post(
    '/auth/2fa/verify',
    { config: { auth: Access.public }, schema: { tags, summary: 'Second login step: challenge token and code (mailed, authenticator app, or a recovery code) give the pair', body: TwoFactorVerifyBody, response: { 201: TokenPair, ...errorResponses(429) } } },
    async (request, reply) => reply.status(201).send(await twoFactor.verify(request.tenant, request.body.challengeToken, request.body.code, sessionMeta(request))),
  );

}
