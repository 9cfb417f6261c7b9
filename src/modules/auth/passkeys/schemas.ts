import { Type } from 'typebox';

const B64u = (description: string, maxLength = 4096) => Type.String({ minLength: 1, maxLength, pattern: '^[A-Za-z0-9_-]+$', description });
const Transports = Type.Array(Type.String({ maxLength: 32 }), { maxItems: 8 });
const Descriptor = Type.Object({ id: Type.String(), type: Type.String({ description: 'public-key' }), transports: Type.Optional(Type.Array(Type.String())) });

export const PasskeyName = Type.String({ minLength: 1, maxLength: 64, description: 'A name the user knows it by ("Laptop", "Phone")' });
export const PasskeyIdParam = Type.Object({ passkeyId: Type.String({ format: 'uuid' }) });

export const Passkey = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  deviceType: Type.Union([Type.Literal('singleDevice'), Type.Literal('multiDevice')], { description: 'multiDevice: a synced passkey' }),
  backedUp: Type.Boolean({ description: 'The authenticator reported the credential backed up (synced)' }),
  transports: Type.Array(Type.String()),
  aaguid: Type.Union([Type.String(), Type.Null()], { description: "The authenticator model's AAGUID" }),
  createdAt: Type.String({ format: 'date-time' }),
  lastUsedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
export const PasskeyList = Type.Object({ data: Type.Array(Passkey) });

export const RegistrationBeginBody = Type.Object({ name: Type.Optional(PasskeyName) }, { additionalProperties: false });

/** PublicKeyCredentialCreationOptionsJSON: pass `options` to navigator.credentials.create (after base64url decoding) or to @simplewebauthn/browser's startRegistration. */
export const RegistrationOptions = Type.Object({
  options: Type.Object({
    rp: Type.Object({ name: Type.String(), id: Type.Optional(Type.String()) }),
    user: Type.Object({ id: Type.String(), name: Type.String(), displayName: Type.String() }),
    challenge: Type.String(),
    pubKeyCredParams: Type.Array(Type.Object({ alg: Type.Integer(), type: Type.String({ description: 'public-key' }) })),
    timeout: Type.Optional(Type.Integer()),
    excludeCredentials: Type.Optional(Type.Array(Descriptor)),
    authenticatorSelection: Type.Optional(
      Type.Object({
        authenticatorAttachment: Type.Optional(Type.String()),
        residentKey: Type.Optional(Type.String()),
        requireResidentKey: Type.Optional(Type.Boolean()),
        userVerification: Type.Optional(Type.String()),
      }),
    ),
    attestation: Type.Optional(Type.String()),
    extensions: Type.Optional(Type.Object({ credProps: Type.Optional(Type.Boolean()) })),
    hints: Type.Optional(Type.Array(Type.String())),
  }),
  expiresAt: Type.String({ format: 'date-time', description: 'The challenge is single use and expires then' }),
});

/** PublicKeyCredentialRequestOptionsJSON, for navigator.credentials.get (no credentials listed: discoverable). */
export const LoginOptions = Type.Object({
  options: Type.Object({
    challenge: Type.String(),
    timeout: Type.Optional(Type.Integer()),
    rpId: Type.Optional(Type.String()),
    allowCredentials: Type.Optional(Type.Array(Descriptor)),
    userVerification: Type.Optional(Type.String()),
    hints: Type.Optional(Type.Array(Type.String())),
  }),
  expiresAt: Type.String({ format: 'date-time', description: 'The challenge is single use and expires then' }),
});

const ClientExtensionResults = Type.Object({}, { additionalProperties: true, maxProperties: 16 });
const Attachment = Type.Optional(Type.Union([Type.Literal('platform'), Type.Literal('cross-platform')]));

/** RegistrationResponseJSON (what @simplewebauthn/browser's startRegistration answers). */
export const RegistrationFinishBody = Type.Object(
  {
    name: Type.Optional(PasskeyName),
    credential: Type.Object({
      id: B64u('Credential id', 1366),
      rawId: B64u('Credential id', 1366),
      type: Type.Literal('public-key'),
      authenticatorAttachment: Attachment,
      clientExtensionResults: ClientExtensionResults,
      response: Type.Object({
        clientDataJSON: B64u('Client data, base64url'),
        attestationObject: B64u('Attestation object, base64url', 16384),
        authenticatorData: Type.Optional(B64u('Authenticator data', 16384)),
        transports: Type.Optional(Transports),
        publicKeyAlgorithm: Type.Optional(Type.Integer()),
        publicKey: Type.Optional(B64u('Public key (SPKI)')),
      }),
    }),
  },
  { additionalProperties: false },
);

/** AuthenticationResponseJSON (what @simplewebauthn/browser's startAuthentication answers). */
export const LoginFinishBody = Type.Object(
  {
    credential: Type.Object({
      id: B64u('Credential id', 1366),
      rawId: B64u('Credential id', 1366),
      type: Type.Literal('public-key'),
      authenticatorAttachment: Attachment,
      clientExtensionResults: ClientExtensionResults,
      response: Type.Object({
        clientDataJSON: B64u('Client data, base64url'),
        authenticatorData: B64u('Authenticator data, base64url', 16384),
        signature: B64u('Signature, base64url'),
        userHandle: Type.Optional(B64u('User handle, base64url', 128)),
      }),
    }),
  },
  { additionalProperties: false },
);
