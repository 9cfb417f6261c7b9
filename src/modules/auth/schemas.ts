import { Type } from 'typebox';
import { MessageResponse } from '../../platform/http/schemas.js';
import { Email, FullName } from '../users/module.js';

export const Password = Type.String({ minLength: 1, maxLength: 1024, description: '8 to 128 characters, not a common password' });

export const RegisterBody = Type.Object(
  { email: Email, password: Password, fullName: Type.Optional(FullName) },
  { additionalProperties: false },
);

export const LoginBody = Type.Object({ email: Email, password: Password }, { additionalProperties: false });

export const RefreshBody = Type.Object(
  { refreshToken: Type.String({ minLength: 1, maxLength: 256 }) },
  { additionalProperties: false },
);

export const TokenPair = Type.Object({
  accessToken: Type.String({ description: 'EdDSA JWT, 15 minutes' }),
  refreshToken: Type.String({ description: 'Opaque, 7 days, rotated on every refresh' }),
  tokenType: Type.Literal('Bearer'),
  expiresIn: Type.Integer({ description: 'Seconds until the access token expires' }),
  accessTokenExpiresAt: Type.String({ format: 'date-time' }),
  refreshTokenExpiresAt: Type.String({ format: 'date-time' }),
});

export const TwoFactorChallenge = Type.Object({
  twoFactorRequired: Type.Literal(true),
  challengeToken: Type.String({ description: 'Single use, 5 minutes; send it with the emailed code (or the authenticator app code) to POST /auth/2fa/verify' }),
  method: Type.Optional(Type.Literal('totp', { description: 'Present when the code comes from an authenticator app (TOTP); absent: the code was emailed' })),
});

export const LoginResponse = Type.Union([TokenPair, TwoFactorChallenge]);

export const Jwks = Type.Object({
  keys: Type.Array(
    Type.Object({
      kty: Type.String(),
      crv: Type.String(),
      x: Type.String(),
      kid: Type.String(),
      alg: Type.String(),
      use: Type.String(),
    }),
  ),
});

export const EmailBody = Type.Object({ email: Email }, { additionalProperties: false });
export const Code = Type.String({ pattern: '^[0-9]{6}$', description: '6-digit code from the mail' });
export const EmailCodeBody = Type.Object({ email: Email, code: Code }, { additionalProperties: false });
export const SecretToken = Type.String({ minLength: 1, maxLength: 256 });
export const TokenBody = Type.Object({ token: SecretToken }, { additionalProperties: false });
export const TokenQuery = Type.Object({ token: SecretToken }, { additionalProperties: false });
export const NewPasswordBody = Type.Object({ password: Password }, { additionalProperties: false });
export const VerifyEmailQuery = Type.Object({ email: Email }, { additionalProperties: false });
export const Verified = Type.Object({ message: Type.String(), emailVerified: Type.Literal(true) });
export const ResetTokenResponse = Type.Object({
  resetToken: Type.String({ description: 'Single use; send it to PUT /auth/reset-password?token=' }),
  expiresIn: Type.Integer({ description: 'Seconds' }),
});
const TwoFactorMethod = Type.Union([Type.Literal('email'), Type.Literal('totp')]);
export const TwoFactorSetupBody = Type.Object(
  {
    method: TwoFactorMethod,
    password: Type.Optional({ ...Password, description: 'Needed only to switch from the other method while it is on' }),
  },
  { additionalProperties: false },
);
export const TotpSetupResponse = Type.Object({
  message: Type.String(),
  method: Type.Literal('totp'),
  secret: Type.String({ description: 'Base32 secret (SHA-1, 6 digits, 30 s), for manual entry; shown once' }),
  otpauthUrl: Type.String({ description: 'otpauth://totp/... URI (Key Uri Format) for authenticator apps' }),
  qrCodeDataUrl: Type.String({ description: 'The otpauth URI as an SVG QR code, a data: URL for an <img>' }),
});
export const TwoFactorSetupResponse = Type.Union([TotpSetupResponse, MessageResponse]);
export const TwoFactorCodeBody = Type.Object(
  {
    code: Code,
    method: Type.Optional({ ...TwoFactorMethod, description: 'Which setup the code confirms; default: TOTP while a TOTP setup is in progress, else email' }),
  },
  { additionalProperties: false },
);
export const TwoFactorDisableBody = Type.Object({ password: Password }, { additionalProperties: false });
const SecondFactorCode = Type.String({
  pattern: '^([0-9]{6}|[A-Za-z2-7]{5}-?[A-Za-z2-7]{5})$',
  description: '6-digit code (mailed, or from the authenticator app), or with TOTP an unused recovery code (xxxxx-xxxxx)',
});
export const TwoFactorVerifyBody = Type.Object({ challengeToken: SecretToken, code: SecondFactorCode }, { additionalProperties: false });
export const TwoFactorStatus = Type.Object({
  enabled: Type.Boolean(),
  method: Type.Union([Type.Literal('email'), Type.Literal('totp'), Type.Null()]),
  enabledAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  recoveryCodesRemaining: Type.Optional(Type.Integer({ description: 'TOTP only: unused recovery codes' })),
});
const RecoveryCodes = Type.Array(Type.String(), { description: 'Ten single-use codes, shown once: keep them safe', minItems: 10, maxItems: 10 });
export const TwoFactorEnabled = Type.Object({
  ...TwoFactorStatus.properties,
  recoveryCodes: Type.Optional(RecoveryCodes),
});
export const RecoveryCodesBody = Type.Object({ password: Password }, { additionalProperties: false });
export const RecoveryCodesResponse = Type.Object({ recoveryCodes: RecoveryCodes });

export const Session = Type.Object({
  id: Type.String({ format: 'uuid' }),
  userAgent: Type.Union([Type.String(), Type.Null()], { description: 'The User-Agent at the session’s start (first 256 characters)' }),
  ip: Type.Union([Type.String(), Type.Null()], { description: 'The client address at the session’s start' }),
  createdAt: Type.String({ format: 'date-time' }),
  lastUsedAt: Type.String({ format: 'date-time', description: 'When the session last got a token pair (its start or its last refresh)' }),
  current: Type.Boolean({ description: 'The session of the calling bearer token' }),
  startedBy: Type.Union([Type.String(), Type.Null()], { description: '`api-key:<keyId>` when the tenant’s back end minted the session; null for a login' }),
});
export const SessionList = Type.Object({ data: Type.Array(Session) });
export const SessionParams = Type.Object({ sessionId: Type.String({ format: 'uuid' }) });
export const SessionUserQuery = Type.Object(
  { userId: Type.Optional(Type.String({ format: 'uuid', description: 'Whose sessions (API key: required; admin: default itself; a user: only its own)' })) },
  { additionalProperties: false },
);
export const EndedSessions = Type.Object({ ended: Type.Integer({ minimum: 0, description: 'How many sessions were ended' }) });
