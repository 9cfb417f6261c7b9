import { Type, type Static } from 'typebox';
import { KeysetQueryFields, Paged } from '../../platform/http/pagination.js';
import { XRPL_SUBMISSION_STATUSES } from '../wallets/table.js';
import { Wallet } from '../wallets/module.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

/** A classic address (r..., base58); the checksum is checked by the service (400 ADDRESS_INVALID). */
const XRPL_ADDRESS_PATTERN = '^r[1-9A-HJ-NP-Za-km-z]{24,34}$';
export const XrplAddress = Type.String({ pattern: XRPL_ADDRESS_PATTERN, description: 'XRPL classic address' });
const UserIdField = Type.Optional(Type.String({ format: 'uuid', description: 'The user acted for: with an API key or an admin token (default: the caller)' }));
const PublicKey = Type.String({ pattern: '^([0-9A-Fa-f]{66})$', description: 'The signing public key, hex (33 bytes: secp256k1, or ED + 32 bytes)' });
const Signature = Type.String({ pattern: '^[0-9A-Fa-f]{2,300}$', description: 'ripple-keypairs signature of the challenge message (UTF-8 bytes), hex' });
const Nonce = Type.String({ pattern: '^[0-9a-f]{32}$', description: 'The `challenge` value a challenge route answered' });
const TxBlob = Type.String({ minLength: 2, maxLength: 200_000, pattern: '^[0-9A-Fa-f]+$' });

export const AddressParam = Type.Object({ address: XrplAddress });
export const UserQuery = Type.Object({ userId: UserIdField }, { additionalProperties: false });
/** GET /non-custodian-xrpl/challenge: the spec's call takes nothing; `address` (optional) binds the challenge. */
export const ChallengeQuery = Type.Object(
  {
    userId: UserIdField,
    address: Type.Optional(
      Type.String({
        pattern: XRPL_ADDRESS_PATTERN,
        description:
          'The account to register: written into the message (the signature then names it) and the only address the challenge registers. Without it the message names no account and says what the signature proves.',
      }),
    ),
  },
  { additionalProperties: false },
);
export const ListQuery = Type.Object({ ...KeysetQueryFields, userId: UserIdField }, { additionalProperties: false });
export const UserBody = Type.Object({ userId: UserIdField }, { additionalProperties: false, description: 'create-wallet: the user, when an API key or admin acts for one' });

export const XrplChallenge = Type.Object({
  challenge: Type.String({ description: 'Single use, 10 minutes, bound to the user (and to `address` when set)' }),
  message: Type.String({ description: 'The exact text to sign (its UTF-8 bytes)' }),
  address: Nullable(Type.String()),
  issuedAt: Type.String({ format: 'date-time' }),
  expiresAt: Type.String({ format: 'date-time' }),
});

export const AccountState = Type.Object({
  exists: Type.Boolean({ description: 'False until the account is funded' }),
  balanceDrops: Type.Optional(Type.String()),
  sequence: Type.Optional(Type.Integer()),
  flags: Type.Optional(Type.Record(Type.String(), Type.Boolean())),
  regularKey: Type.Optional(Nullable(Type.String())),
  signerList: Type.Optional(Nullable(Type.Object({ quorum: Type.Integer(), signers: Type.Array(Type.Object({ account: Type.String(), weight: Type.Integer() })) }))),
  ledgerIndex: Type.Optional(Type.Integer()),
});

export const XrplWallet = Type.Object({ ...Wallet.properties, account: AccountState });

export const RegisterSecureAccountBody = Type.Object(
  {
    userId: UserIdField,
    address: XrplAddress,
    challenge: Nonce,
    signatures: Type.Array(Type.Object({ publicKey: PublicKey, signature: Signature }, { additionalProperties: false }), {
      minItems: 1,
      maxItems: 32,
      description: 'One signature by the master or regular key, or signatures of SignerList members meeting the quorum',
    }),
  },
  { additionalProperties: false },
);

export const RegisterColdBody = Type.Object(
  { userId: UserIdField, address: XrplAddress, publicKey: PublicKey, signature: Signature, challenge: Nonce },
  { additionalProperties: false },
);

export const UpdateWalletBody = Type.Object(
  {
    userId: UserIdField,
    rippling: Type.Optional(Type.Boolean({ description: 'asfDefaultRipple' })),
    requireDestinationTag: Type.Optional(Type.Boolean({ description: 'asfRequireDest' })),
    disallowXrp: Type.Optional(Type.Boolean({ description: 'asfDisallowXRP' })),
    depositAuth: Type.Optional(Type.Boolean({ description: 'asfDepositAuth' })),
    multiSignature: Type.Optional(Type.Boolean({ description: 'Investor wallet: SignerList (signer + cold, quorum 2), then the master key disabled. Only true.' })),
  },
  { additionalProperties: false },
);

export const Submission = Type.Object({
  submissionId: Type.String({ format: 'uuid' }),
  hash: Type.String(),
  account: Type.String(),
  transactionType: Type.String(),
  sequence: Type.Integer(),
  lastLedgerSequence: Type.Integer(),
  status: Type.Enum([...XRPL_SUBMISSION_STATUSES]),
  engineResult: Nullable(Type.String({ description: 'Preliminary result of the last submit (not final)' })),
  result: Nullable(Type.String({ description: 'Final result once validated' })),
  ledgerIndex: Nullable(Type.Integer()),
  validated: Type.Boolean(),
});

export const UpdateWalletResult = Type.Object({ wallet: XrplWallet, transactions: Type.Array(Submission) });

export const SignMessageBody = Type.Object(
  { userId: UserIdField, address: XrplAddress, message: Type.String({ minLength: 1, maxLength: 4096 }) },
  { additionalProperties: false },
);
export const SignedMessage = Type.Object({ address: Type.String(), publicKey: Type.String(), message: Type.String(), signature: Type.String() });

export const SignTransactionBody = Type.Object(
  {
    userId: UserIdField,
    transaction: Type.Object(
      { TransactionType: Type.String({ maxLength: 40 }), Account: XrplAddress },
      { additionalProperties: true, description: 'An XRPL transaction in JSON (Payment, AccountSet, TrustSet, SetRegularKey, SignerListSet), without Sequence, Fee, LastLedgerSequence or signatures' },
    ),
  },
  { additionalProperties: false },
);

export const SignedTransaction = Type.Object({
  complete: Type.Boolean(),
  txBlob: Nullable(Type.String()),
  hash: Nullable(Type.String()),
  transaction: Type.Record(Type.String(), Type.Unknown()),
  signaturesRequired: Type.Array(Type.Object({ account: Type.String(), multisign: Type.Boolean(), signingData: Type.String() })),
});

export const TxSubmitBody = Type.Object(
  {
    userId: UserIdField,
    txBlob: Type.Optional(TxBlob),
    txBlobs: Type.Optional(Type.Array(TxBlob, { minItems: 1, maxItems: 32, description: 'Multi-signatures of one transaction, combined by the service' })),
  },
  { additionalProperties: false },
);

export const WalletsByKind = Type.Object({
  investor: Nullable(Wallet),
  signer: Nullable(Wallet),
  cold: Type.Array(Wallet),
  secure: Type.Array(Wallet),
});

export const WalletPage = Paged(Wallet);
export type RegisterSecureAccountInput = Static<typeof RegisterSecureAccountBody>;
