import { Type, type Static } from 'typebox';
import { Paged, PageQueryFields } from '../../platform/http/pagination.js';
import { PAYMENT_METHOD_KINDS } from './table.js';
import { CRYPTO_CHAINS } from './validation.js';

const literals = <const T extends readonly string[]>(values: T) => Type.Enum<[...T]>(values);
const Text = (max: number, description?: string) => Type.String({ minLength: 1, maxLength: max, pattern: '\\S', description });
const Currency = Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 currency code' });
const Routing = Type.String({ pattern: '^[0-9]{9}$', description: 'ABA routing number (nine digits, checksum verified)' });

export const BankWireDetails = Type.Object(
  {
    accountHolderName: Text(200),
    iban: Type.Optional(Type.String({ minLength: 15, maxLength: 42, description: 'IBAN (checksum verified); sealed at rest. Give iban or accountNumber' })),
    accountNumber: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9]{4,34}$', description: 'Account number where there is no IBAN; sealed at rest' })),
    routingNumber: Type.Optional(Routing),
    bic: Type.String({ minLength: 8, maxLength: 11, description: 'SWIFT/BIC (ISO 9362)' }),
    bankName: Text(200),
    bankAddress: Type.Optional(Text(500)),
    currency: Currency,
  },
  { additionalProperties: false },
);

export const AchDetails = Type.Object(
  {
    accountHolderName: Text(200),
    accountNumber: Type.String({ pattern: '^[0-9]{4,17}$', description: 'US account number; sealed at rest' }),
    routingNumber: Routing,
    accountType: literals(['checking', 'savings'] as const),
    bankName: Text(200),
    currency: Type.Optional(Type.Literal('USD')),
  },
  { additionalProperties: false },
);

export const CryptoDetails = Type.Object(
  {
    chain: literals(CRYPTO_CHAINS),
    address: Type.String({ minLength: 20, maxLength: 100, description: 'Checked for its chain: EIP-55 (evm), classic address (xrpl), mainnet (bitcoin)' }),
    asset: Type.String({ pattern: '^[A-Z0-9]{2,12}$', description: 'What is paid to the address, e.g. USDC, XRP, BTC' }),
    destinationTag: Type.Optional(Type.String({ pattern: '^[0-9]{1,10}$', description: 'XRPL only' })),
  },
  { additionalProperties: false },
);

const Label = Type.String({ minLength: 1, maxLength: 100 });

export const CreatePaymentMethodBody = Type.Union(
  [
    Type.Object({ kind: Type.Literal('bank_wire'), label: Type.Optional(Label), details: BankWireDetails }, { additionalProperties: false }),
    Type.Object({ kind: Type.Literal('ach'), label: Type.Optional(Label), details: AchDetails }, { additionalProperties: false }),
    Type.Object({ kind: Type.Literal('crypto'), label: Type.Optional(Label), details: CryptoDetails }, { additionalProperties: false }),
  ],
  { description: 'A bank wire (IBAN or account number, BIC), a US ACH account, or a crypto address' },
);

export const UpdatePaymentMethodBody = Type.Object(
  {
    label: Type.Optional(Type.Union([Label, Type.Null()])),
    archived: Type.Optional(Type.Boolean({ description: 'Archived methods stay readable; there is no deletion' })),
    details: Type.Optional(Type.Union([BankWireDetails, AchDetails, CryptoDetails], { description: 'A complete replacement, of the same kind' })),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const PaymentMethod = Type.Object({
  id: Type.String({ format: 'uuid' }),
  entityId: Type.String({ format: 'uuid' }),
  kind: literals(PAYMENT_METHOD_KINDS),
  label: Type.Union([Type.String(), Type.Null()]),
  currency: Type.String(),
  details: Type.Record(Type.String(), Type.String()),
  masked: Type.Boolean({ description: 'True when iban / accountNumber show only their last four characters (callers without manage_payment_methods)' }),
  archived: Type.Boolean(),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

export const PaymentMethodList = Paged(PaymentMethod);

export const ListPaymentMethodsQuery = Type.Object(
  { includeArchived: Type.Boolean({ default: false }), ...PageQueryFields },
  { additionalProperties: false },
);

export const MethodParams = Type.Object({ id: Type.String({ format: 'uuid' }), methodId: Type.String({ format: 'uuid' }) });

export type PaymentMethodDto = Static<typeof PaymentMethod>;
export type CreatePaymentMethodInput = Static<typeof CreatePaymentMethodBody>;
export type UpdatePaymentMethodInput = Static<typeof UpdatePaymentMethodBody>;
export type PaymentDetailsInput = Static<typeof BankWireDetails> | Static<typeof AchDetails> | Static<typeof CryptoDetails>;
