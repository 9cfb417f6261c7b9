import { Type, type Static } from 'typebox';
import { PageQueryFields, Paged } from '../../platform/http/pagination.js';
import { Wallet } from '../wallets/schemas.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const Text = (max: number, description?: string) => Type.String({ minLength: 1, maxLength: max, ...(description ? { description } : {}) });

export const CreateVaultBody = Type.Object(
  {
    userId: Type.Optional(Type.String({ format: 'uuid', description: 'The owner; required with an API key, defaults to the caller with a bearer token' })),
    name: Type.Optional(Text(200, 'A name for the vault (default "vault")')),
    xrplWallet: Type.Optional(Type.Boolean({ description: 'Also open an XRPL wallet in the vault (default false)' })),
  },
  { additionalProperties: false },
);
export type CreateVaultBody = Static<typeof CreateVaultBody>;

export const VaultQuery = Type.Object(
  {
    id: Type.Optional(Type.String({ format: 'uuid', description: 'The vault id' })),
    address: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'An address of one of the vault wallets (EVM any case, or XRPL)' })),
  },
  { additionalProperties: false },
);

export const Vault = Type.Object({
  id: Type.String({ format: 'uuid', description: 'The vaultId the custody-a routes take' }),
  userId: Type.String({ format: 'uuid' }),
  provider: Type.String(),
  name: Type.String(),
  address: Type.String({ description: 'The EVM address of the vault' }),
  wallets: Type.Array(Wallet),
  createdAt: Type.String({ format: 'date-time' }),
});
export type VaultDto = Static<typeof Vault>;

export const WalletPathParams = Type.Object({
  vaultId: Type.String({ format: 'uuid' }),
  walletId: Type.String({ format: 'uuid' }),
});
export const TransactionPathParams = Type.Object({
  vaultId: Type.String({ format: 'uuid' }),
  walletId: Type.String({ format: 'uuid' }),
  transactionId: Type.String({ format: 'uuid' }),
});

export const TransferBody = Type.Object(
  {
    destinationAddress: Text(64),
    symbol: Text(16, 'ETH or an ERC-20 symbol (with contract) for EVM wallets; XRP for XRPL wallets'),
    qty: Text(40, 'A positive decimal string, within the asset decimals (ETH 18, XRP 6)'),
    contract: Type.Optional(Text(42, 'ERC-20 contract, EIP-55 checksummed')),
    sequence: Type.Optional(Text(10, 'XRPL account sequence to use')),
  },
  { additionalProperties: false },
);
export type TransferBody = Static<typeof TransferBody>;

export const UpdateWalletBody = Type.Object(
  {
    name: Text(200),
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    accountSet: Type.Optional(Type.Boolean({ description: 'XRPL wallets: also issue an AccountSet turning on DefaultRipple' })),
  },
  { additionalProperties: false },
);
export type UpdateWalletBody = Static<typeof UpdateWalletBody>;

export const Transaction = Type.Object({
  transactionId: Type.String({ format: 'uuid' }),
  vaultId: Type.String({ format: 'uuid' }),
  walletId: Type.String({ format: 'uuid' }),
  type: Type.String({ description: 'TRANSFER or ACCOUNT_SET' }),
  status: Type.String({ description: 'REQUESTED, APPROVED, COMPILED, SIGNED, PUBLISHED, CONFIRMATION_PENDING, CONFIRMED, REJECTED or FAILED' }),
  symbol: Nullable(Type.String()),
  qty: Nullable(Type.String()),
  destinationAddress: Nullable(Type.String()),
  contract: Nullable(Type.String()),
  hash: Nullable(Type.String({ description: 'The chain transaction hash once signed' })),
  failureReason: Nullable(Type.String()),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});
export type TransactionDto = Static<typeof Transaction>;

export const WalletUpdate = Type.Object({
  wallet: Wallet,
  name: Type.String(),
  description: Nullable(Type.String()),
  accountSet: Nullable(Transaction),
});

export const QUESTIONNAIRE_FIELDS = [
  'destinationType', 'recipientType', 'purpose', 'originatorType', 'selfhostedDescription', 'institutionName', 'institutionCountry',
  'originatorName', 'originatorStreetAddress', 'originatorCity', 'originatorStateProvince', 'originatorPostalCode', 'originatorCountry',
  'recipientFirstName', 'recipientLastName', 'recipientFullName', 'recipientCountry', 'recipientStreetAddress', 'recipientCity',
  'recipientStateProvince', 'recipientPostalCode',
] as const;

export const Questionnaire = Type.Object(
  Object.fromEntries(QUESTIONNAIRE_FIELDS.map((f) => [f, Type.Optional(Type.String({ maxLength: 500 }))])) as Record<(typeof QUESTIONNAIRE_FIELDS)[number], ReturnType<typeof Type.Optional<ReturnType<typeof Type.String>>>>,
  { additionalProperties: false },
);
export type QuestionnaireInput = Partial<Record<(typeof QUESTIONNAIRE_FIELDS)[number], string>>;

export const NonCustodialTransferBody = Type.Object(
  {
    amount: Text(40, 'A positive decimal string (ETH: at most 18 decimals)'),
    assetType: Text(16, 'ETH'),
    sourceId: Type.String({ format: 'uuid', description: "A walletId of the caller's, held by the provider" }),
    sourceType: Text(32, 'WALLET'),
    destinationId: Text(64, 'The destination address'),
    destinationType: Text(32, 'ADDRESS'),
    deductFeeFromAmountIfSameType: Type.Optional(Type.Boolean({ default: false })),
    idempotentId: Text(255, 'Required: a repeat answers the first result'),
    transferMemo: Type.Optional(Type.String({ maxLength: 500 })),
    provider: Text(32, 'The custody provider that executes the transfer: custody-a'),
    transferAmlQuestionnaire: Type.Optional(Questionnaire),
  },
  { additionalProperties: false },
);
export type NonCustodialTransferBody = Static<typeof NonCustodialTransferBody>;

export const Transfer = Type.Object({
  id: Type.String({ format: 'uuid' }),
  userId: Type.String({ format: 'uuid' }),
  provider: Type.String(),
  idempotentId: Type.String(),
  amount: Type.String(),
  assetType: Type.String(),
  sourceId: Type.String(),
  sourceType: Type.String(),
  destinationId: Type.String(),
  destinationType: Type.String(),
  deductFeeFromAmountIfSameType: Type.Boolean(),
  transferMemo: Nullable(Type.String()),
  status: Type.String({ description: 'QUEUED, IN_PROGRESS, COMPLETED or FAILED' }),
  providerTransferId: Type.String(),
  hash: Nullable(Type.String()),
  failureReason: Nullable(Type.String()),
  hasQuestionnaire: Type.Boolean(),
  transferAmlQuestionnaire: Type.Optional(Nullable(Questionnaire)),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});
export type TransferDto = Static<typeof Transfer>;
export const TransferList = Paged(Transfer);
export const TransferListQuery = Type.Object({ ...PageQueryFields }, { additionalProperties: false });
export const TransferIdParams = Type.Object({ id: Type.String({ format: 'uuid' }) });
