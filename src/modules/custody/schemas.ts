import { Type, type Static } from 'typebox';
import { KeysetDescQueryFields, PageQueryFields, Paged } from '../../platform/http/pagination.js';
import { Wallet } from '../wallets/module.js';

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

/** The questionnaire's vocabularies (the spec names these; another value is 400 ENUM_VALUE_UNKNOWN, checked by the service). */
export const QUESTIONNAIRE_ENUMS = {
  destinationType: ['FINANCIAL_INSTITUTION', 'SELFHOSTED_WALLET'],
  recipientType: ['DESTINATION_INSTITUTION', 'MY_ORGANIZATION', 'PERSON'],
  purpose: ['TRADING_SETTLEMENT', 'INVESTMENT', 'PAYMENT', 'OTHER'],
  originatorType: ['MY_ORGANIZATION', 'PERSON'],
} as const;

const INSTITUTION_ONLY = ' Required when destinationType is FINANCIAL_INSTITUTION.';
const BOTH_CASES = ' Required for both destination types.';
/** A free-text field of the questionnaire. */
const QText = (description: string) => Type.Optional(Type.String({ maxLength: 500, description }));
/** A vocabulary field: a string (so an unknown value gets its own code, ENUM_VALUE_UNKNOWN), its values listed. */
const QEnum = (field: keyof typeof QUESTIONNAIRE_ENUMS, description: string) =>
  Type.Optional(Type.String({ maxLength: 500, description: `${description} One of: ${QUESTIONNAIRE_ENUMS[field].join(', ')}.`, examples: [QUESTIONNAIRE_ENUMS[field][0]] }));

/**
 * Travel-rule data of a transfer. Which fields are required depends on destinationType: to a
 * financial institution, the recipient type, purpose, originator type, institution name and
 * country, originator name and country; to a self-hosted wallet, purpose, originator type,
 * originator name and country (400 TRAVEL_RULE_DATA_REQUIRED names what is missing).
 */
export const Questionnaire = Type.Object(
  {
    destinationType: QEnum('destinationType', 'Where the funds go: an account at a financial institution, or a wallet whose keys the recipient holds.' + BOTH_CASES),
    recipientType: QEnum('recipientType', 'Who receives the funds.' + INSTITUTION_ONLY),
    purpose: QEnum('purpose', 'Why the funds are sent.' + BOTH_CASES),
    originatorType: QEnum('originatorType', 'Who sends the funds.' + BOTH_CASES),
    selfhostedDescription: QText('For a self-hosted wallet: a free description of it (optional).'),
    institutionName: QText('The name of the receiving financial institution.' + INSTITUTION_ONLY),
    institutionCountry: QText('The country of the receiving financial institution (ISO 3166-1 alpha-2).' + INSTITUTION_ONLY),
    originatorName: QText("The originator's name." + BOTH_CASES),
    originatorStreetAddress: QText("The originator's street address."),
    originatorCity: QText("The originator's city."),
    originatorStateProvince: QText("The originator's state or province."),
    originatorPostalCode: QText("The originator's postal code."),
    originatorCountry: QText("The originator's country (ISO 3166-1 alpha-2)." + BOTH_CASES),
    recipientFirstName: QText("The recipient's first name (a person)."),
    recipientLastName: QText("The recipient's last name (a person)."),
    recipientFullName: QText("The recipient's full name."),
    recipientCountry: QText("The recipient's country (ISO 3166-1 alpha-2)."),
    recipientStreetAddress: QText("The recipient's street address."),
    recipientCity: QText("The recipient's city."),
    recipientStateProvince: QText("The recipient's state or province."),
    recipientPostalCode: QText("The recipient's postal code."),
  },
  { additionalProperties: false, description: 'Travel-rule data. Required fields depend on destinationType (see each field).' },
);
export type QuestionnaireInput = Static<typeof Questionnaire>;
export const QUESTIONNAIRE_FIELDS = Object.keys(Questionnaire.properties) as Array<keyof QuestionnaireInput>;

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

/** A recorded status of a transfer: the audit log's transfer.submitted / transfer.updated rows (the one history store). */
export const TransferHistoryEntry = Type.Object({
  status: Type.String(),
  hash: Nullable(Type.String({ description: 'The chain hash known at this step' })),
  actor: Type.Object({ type: Type.String(), id: Nullable(Type.String()) }),
  at: Type.String({ format: 'date-time' }),
});
const { transferAmlQuestionnaire: _questionnaire, ...transferFields } = Transfer.properties;
/** A transfer as an admin lists it: no travel-rule data (GET /non-custodial-evm/transfers/:id has it), its status history. */
export const AdminTransfer = Type.Object({
  ...transferFields,
  history: Type.Array(TransferHistoryEntry, { description: 'Recorded statuses, oldest first (transfers made before the history was kept have none)' }),
});
export type AdminTransferDto = Static<typeof AdminTransfer>;
export const AdminTransferList = Paged(AdminTransfer);
export const AdminTransferListQuery = Type.Object(
  {
    ...KeysetDescQueryFields,
    status: Type.Optional(Type.String({ minLength: 1, maxLength: 32, description: 'Only transfers in this status (QUEUED, IN_PROGRESS, COMPLETED, FAILED)' })),
    userId: Type.Optional(Type.String({ format: 'uuid', description: "Only this user's transfers" })),
  },
  { additionalProperties: false },
);
export type AdminTransferListQuery = Static<typeof AdminTransferListQuery>;
