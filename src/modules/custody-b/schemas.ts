import { Type, type Static } from 'typebox';
import { EVM_ADDRESS_PATTERN } from '../../platform/crypto/evm-address.js';

const B64URL = '^[A-Za-z0-9_-]+={0,2}$';
const b64 = (max: number, description: string) => Type.String({ minLength: 1, maxLength: max, pattern: B64URL, description });
const EvmAddress = Type.String({ pattern: EVM_ADDRESS_PATTERN, description: "The wallet's EVM address (any case)" });
const XrplAddress = Type.String({ pattern: '^r[1-9A-HJ-NP-Za-km-z]{24,34}$', description: "The wallet's XRPL classic address" });
const Hex = (max: number, description: string) => Type.String({ pattern: '^0x([0-9a-fA-F]{2})*$', maxLength: max, description });

export const Network = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[A-Za-z0-9]+$',
  description: "The provider's network name (e.g. EthereumSepolia, or XrpLedger / XrpLedgerTestnet for an XRPL wallet); default: the tenant's setting, else EthereumSepolia",
});

/** A new credential as the user's authenticator made it (a key credential, or a WebAuthn passkey). */
export const CredentialAttestation = Type.Object(
  {
    credentialKind: Type.Union([Type.Literal('Key'), Type.Literal('Fido2')]),
    credentialInfo: Type.Object(
      {
        credId: b64(512, 'The credential id'),
        clientData: b64(8192, 'Base64url JSON {type: "key.create" | "webauthn.create", challenge, origin, crossOrigin}'),
        attestationData: b64(16384, 'Key: base64url JSON {publicKey (PEM), signature (over the client data)}; Fido2: the attestation object'),
      },
      { additionalProperties: false },
    ),
    credentialName: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);

export const RegisterBody = Type.Object({ firstFactorCredential: CredentialAttestation }, { additionalProperties: false });

const KeyAssertion = Type.Object(
  {
    kind: Type.Literal('Key'),
    credentialAssertion: Type.Object(
      { credId: b64(512, 'The credential id'), clientData: b64(8192, 'Base64url JSON {type: "key.get", challenge, origin, crossOrigin}'), signature: b64(4096, 'Over the client data') },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
const Fido2Assertion = Type.Object(
  {
    kind: Type.Literal('Fido2'),
    credentialAssertion: Type.Object(
      {
        credId: b64(512, 'The credential id'),
        clientData: b64(8192, 'clientDataJSON'),
        signature: b64(4096, 'The assertion signature'),
        authenticatorData: b64(8192, 'authenticatorData'),
        userHandle: Type.Optional(b64(512, 'userHandle')),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

/** The challenge as the user's credential signed it. */
export const SignedChallenge = Type.Object(
  {
    challengeIdentifier: Type.String({ minLength: 1, maxLength: 256, description: 'As the challenge route answered it' }),
    firstFactor: Type.Union([KeyAssertion, Fido2Assertion]),
  },
  { additionalProperties: false },
);

export const RegistrationChallenge = Type.Object({
  challenge: Type.String({ description: 'Sign it with the new credential (client data type key.create, or a WebAuthn create)' }),
  user: Type.Object({ id: Type.String(), displayName: Type.String(), name: Type.String() }),
  rp: Type.Optional(Type.Object({ id: Type.String(), name: Type.String() })),
  supportedCredentialKinds: Type.Object({ firstFactor: Type.Array(Type.String()), secondFactor: Type.Array(Type.String()) }),
  authenticatorSelection: Type.Record(Type.String(), Type.Unknown()),
  attestation: Type.String(),
  pubKeyCredParams: Type.Array(Type.Object({ type: Type.Literal('public-key'), alg: Type.Integer() })),
  excludeCredentials: Type.Array(Type.Object({ type: Type.Literal('public-key'), id: Type.String() })),
  expiresAt: Type.String({ format: 'date-time' }),
});

export const CustodyBUser = Type.Object({
  userId: Type.String({ format: 'uuid' }),
  providerUserId: Type.String(),
  username: Type.String(),
  credential: Type.Object({ uuid: Type.String(), kind: Type.String(), name: Type.String() }),
  registeredAt: Type.String({ format: 'date-time' }),
});

export const AuthToken = Type.Object({ token: Type.String({ description: "The provider's token for the caller (delegated login)" }) });

const AllowedCredentials = Type.Object({
  key: Type.Array(Type.Object({ type: Type.Literal('public-key'), id: Type.String() })),
  webauthn: Type.Array(Type.Object({ type: Type.Literal('public-key'), id: Type.String() })),
});

export const ActionChallenge = Type.Object({
  challenge: Type.String({ description: "Sign it with the user's credential (client data type key.get, or a WebAuthn get)" }),
  challengeIdentifier: Type.String(),
  allowCredentials: AllowedCredentials,
  supportedCredentialKinds: Type.Array(Type.Object({ kind: Type.String(), factor: Type.String(), requiresSecondFactor: Type.Boolean() })),
  userVerification: Type.String(),
  expiresAt: Type.String({ format: 'date-time' }),
  request: Type.Object(
    { method: Type.String(), path: Type.String(), body: Type.Unknown() },
    { description: 'The provider request the challenge is bound to (answered for the record; the complete route rebuilds it from its own body)' },
  ),
});

export const WalletChallengeQuery = Type.Object({ network: Type.Optional(Network) }, { additionalProperties: false });
export const CreateWalletBody = Type.Object({ network: Type.Optional(Network), signedChallenge: SignedChallenge }, { additionalProperties: false });
export const AddressQuery = Type.Object(
  { address: Type.Union([EvmAddress, XrplAddress], { description: "The wallet's address: EVM (any case) or XRPL classic" }) },
  { additionalProperties: false },
);
export const WalletListQuery = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
    offset: Type.Integer({ minimum: 0, maximum: 10_000_000, default: 0 }),
  },
  { additionalProperties: false },
);

const transaction = Hex(262_144, "The unsigned serialized transaction, hex: EVM (EIP-1559, EIP-2930 or legacy), or XRPL (the binary codec's encoding, with Sequence and Fee, of the wallet's Account)");
export const RawTransactionChallengeBody = Type.Object({ transaction }, { additionalProperties: false });
export const RawTransactionCompleteBody = Type.Object({ transaction, signedChallenge: SignedChallenge }, { additionalProperties: false });

const message = Type.String({ minLength: 1, maxLength: 16_384, description: 'The text to sign (UTF-8), as EIP-191 personal_sign' });
export const MessageChallengeBody = Type.Object({ address: EvmAddress, message }, { additionalProperties: false });
export const MessageSignBody = Type.Object({ address: EvmAddress, message, signedChallenge: SignedChallenge }, { additionalProperties: false });

const TypeFields = Type.Array(Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }), type: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false }), {
  maxItems: 64,
});
export const TypedData = Type.Object(
  {
    domain: Type.Object(
      {
        name: Type.Optional(Type.String({ maxLength: 200 })),
        version: Type.Optional(Type.String({ maxLength: 50 })),
        chainId: Type.Optional(Type.Integer({ minimum: 1 })),
        verifyingContract: Type.Optional(EvmAddress),
        salt: Type.Optional(Type.String({ pattern: '^0x[0-9a-fA-F]{64}$' })),
      },
      { additionalProperties: false },
    ),
    types: Type.Record(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]{0,99}$' }), TypeFields, { description: 'Type definitions (EIP712Domain may be left out)' }),
    primaryType: Type.String({ minLength: 1, maxLength: 100 }),
    message: Type.Record(Type.String(), Type.Unknown()),
  },
  { additionalProperties: false },
);
export const Eip712ChallengeBody = Type.Object({ address: EvmAddress, typedData: TypedData }, { additionalProperties: false });
export const Eip712SignBody = Type.Object({ address: EvmAddress, typedData: TypedData, signedChallenge: SignedChallenge }, { additionalProperties: false });

export const Signature = Type.Object({
  r: Type.String(),
  s: Type.String(),
  recid: Type.Integer({ minimum: 0, maximum: 1 }),
  encoded: Type.String({ description: 'r || s || v (65 bytes, hex): what viem verifyMessage / verifyTypedData take' }),
});

export const SignatureResult = Type.Object({
  signatureId: Type.String(),
  walletId: Type.String({ format: 'uuid' }),
  address: Type.String(),
  signature: Signature,
});

export const BroadcastResult = Type.Object({
  transactionId: Type.String(),
  walletId: Type.String({ format: 'uuid' }),
  address: Type.String(),
  txHash: Type.String(),
  status: Type.String(),
});

export type SignedChallengeInput = Static<typeof SignedChallenge>;
export type TypedDataInput = Static<typeof TypedData>;
export type RegisterInput = Static<typeof RegisterBody>;
