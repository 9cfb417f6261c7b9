import { Type, type Static } from 'typebox';
import { DILIGENCE_STATUSES } from '../../providers/bank-link/port.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const literals = <const T extends readonly string[]>(values: T) => Type.Enum<[...T]>(values);

const RedirectUrl = Type.String({ minLength: 1, maxLength: 2048, description: "Where the Link page returns the browser (with ?public_token=...); must match the tenant's allow-list" });

export const LinkTokenQuery = Type.Object({ redirectUrl: RedirectUrl }, { additionalProperties: false });

export const LinkTokenResponse = Type.Object({
  linkToken: Type.String(),
  expiration: Type.String({ format: 'date-time' }),
  linkUrl: Nullable(Type.String({ description: 'The hosted Link page to open in the browser' })),
});

export const PublicTokenBody = Type.Object(
  { publicToken: Type.String({ minLength: 1, maxLength: 200, description: 'The public token the Link page handed back' }) },
  { additionalProperties: false },
);

export const BankAccount = Type.Object({
  accountId: Type.String(),
  name: Type.String(),
  mask: Nullable(Type.String({ description: 'The last 2-4 characters of the account number' })),
  type: Type.String(),
  subtype: Nullable(Type.String()),
});

export const BankLinkItem = Type.Object({
  itemId: Type.String({ format: 'uuid' }),
  institutionId: Nullable(Type.String()),
  institutionName: Nullable(Type.String()),
  status: literals(['active', 'login_required', 'pending_expiration', 'revoked'] as const),
  errorCode: Nullable(Type.String()),
  accounts: Type.Array(BankAccount),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

export const BankLinkItemList = Type.Object({ total: Type.Integer(), data: Type.Array(BankLinkItem) });

export const ItemIdParam = Type.Object({ itemId: Type.String({ format: 'uuid' }) });

export const RemovedResponse = Type.Object({ itemId: Type.String({ format: 'uuid' }), removed: Type.Literal(true) });

export const Originator = Type.Object({
  id: Type.String({ description: "The originator's client id at the provider" }),
  companyName: Nullable(Type.String()),
  diligenceStatus: literals(DILIGENCE_STATUSES),
});

const Credentials = {
  clientId: Type.String({ minLength: 1, maxLength: 100, description: "The tenant's bank-link sandbox client id" }),
  secret: Type.String({ minLength: 1, maxLength: 200, description: "The tenant's bank-link sandbox secret" }),
};

export const CreateOriginatorBody = Type.Object(
  { ...Credentials, companyName: Type.String({ minLength: 1, maxLength: 200 }) },
  { additionalProperties: false },
);

export const KybBody = Type.Object(
  { ...Credentials, redirectUri: Type.String({ minLength: 1, maxLength: 2048, description: "Where the questionnaire returns; must match the tenant's allow-list" }) },
  { additionalProperties: false },
);

export const KybResponse = Type.Object({ originatorId: Type.String(), onboardingUrl: Type.String() });

export const OriginatorListQuery = Type.Object(
  {
    count: Type.Integer({ minimum: 1, maximum: 25, description: 'Page size, 1-25' }),
    offset: Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'Originators to skip' }),
  },
  { additionalProperties: false },
);

export const OriginatorList = Type.Object({ count: Type.Integer(), offset: Type.Integer(), data: Type.Array(Originator) });

/** An originator client id (24 characters at the provider); the bound stays under the router's 100-character segment limit (414 above it), so the schema, not the router, answers a 400 for a longer one. */
export const OriginatorIdParam = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }) });

export const WebhookAck = Type.Object({ received: Type.Literal(true) });
export const WebhookTenantParam = Type.Object({ tenantId: Type.String({ format: 'uuid' }) });

export type LinkTokenDto = Static<typeof LinkTokenResponse>;
export type BankLinkItemDto = Static<typeof BankLinkItem>;
export type OriginatorDto = Static<typeof Originator>;
export type CreateOriginatorInput = Static<typeof CreateOriginatorBody>;
export type KybInput = Static<typeof KybBody>;
