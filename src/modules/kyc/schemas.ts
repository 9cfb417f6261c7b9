import { Type, type Static } from 'typebox';
import { Paged, PageQueryFields } from '../../platform/http/pagination.js';
import { IDV_A_ACTIONS, IDV_A_DECISIONS, IDV_B_STATUSES } from '../../providers/idv/port.js';
import { KYC_STATUSES } from './state.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const literals = <const T extends readonly string[]>(values: T) => Type.Enum<[...T]>(values);

export const KycStatusSchema = literals(KYC_STATUSES);
const Country = Type.String({ pattern: '^[A-Za-z]{2}$', description: 'ISO 3166-1 alpha-2' });
const Name = Type.String({ minLength: 1, maxLength: 200 });
const Reason = Type.String({ minLength: 1, maxLength: 1000 });
const Level = Type.String({ minLength: 1, maxLength: 50, pattern: '^[A-Za-z0-9_-]+$', description: 'Verification level, e.g. basic, enhanced' });

export const KycAttempt = Type.Object({
  kycId: Type.String({ format: 'uuid' }),
  userId: Type.String({ format: 'uuid' }),
  provider: literals(['idv-a', 'idv-b', 'manual'] as const),
  flow: Type.String({ description: 'session (idv-a), web3 or regular (idv-b), manual' }),
  status: KycStatusSchema,
  sessionUrl: Nullable(Type.String()),
  reason: Nullable(Type.String()),
  firstName: Nullable(Type.String()),
  lastName: Nullable(Type.String()),
  dateOfBirth: Nullable(Type.String()),
  country: Nullable(Type.String()),
  documentType: Nullable(Type.String()),
  level: Type.String(),
  walletAddress: Nullable(Type.String()),
  walletChain: Nullable(Type.String()),
  walletVerified: Type.Boolean(),
  expiresAt: Type.String({ format: 'date-time' }),
  decidedAt: Nullable(Type.String({ format: 'date-time' })),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

export const KycHistoryEntry = Type.Object({
  action: literals(['transition', 'update'] as const),
  from: Nullable(Type.String()),
  to: Nullable(Type.String()),
  changes: Nullable(Type.Record(Type.String(), Type.Unknown())),
  actor: Type.Object({ type: Type.String(), id: Nullable(Type.String()) }),
  reason: Nullable(Type.String()),
  at: Type.String({ format: 'date-time' }),
});

export const KycAttemptDetail = Type.Object({ ...KycAttempt.properties, history: Type.Array(KycHistoryEntry) });
export const KycList = Paged(KycAttempt);

export const SessionCreated = Type.Object({
  kycId: Type.String({ format: 'uuid' }),
  provider: Type.String(),
  status: KycStatusSchema,
  sessionUrl: Nullable(Type.String()),
  expiresAt: Type.String({ format: 'date-time' }),
});

const SessionFields = Type.Object(
  {
    firstName: Type.Optional(Name),
    lastName: Type.Optional(Name),
    callbackUrl: Type.Optional(Type.String({ format: 'uri', maxLength: 2000, description: 'Where the provider page sends the person when done' })),
  },
  { additionalProperties: false },
);
/** The body is optional: an empty POST starts a session with no pre-filled data. */
export const CreateSessionBody = Type.Union([SessionFields, Type.Null()]);

export const InitiateKycBody = Type.Object(
  {
    userId: Type.String({ format: 'uuid' }),
    provider: Type.Optional(literals(['idv-a', 'manual'] as const)),
    firstName: Type.Optional(Name),
    lastName: Type.Optional(Name),
    country: Type.Optional(Country),
    level: Type.Optional(Level),
  },
  { additionalProperties: false },
);

export const UpdateKycBody = Type.Object(
  {
    firstName: Type.Optional(Nullable(Name)),
    lastName: Type.Optional(Nullable(Name)),
    dateOfBirth: Type.Optional(Nullable(Type.String({ format: 'date' }))),
    country: Type.Optional(Nullable(Country)),
    documentType: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 100 }))),
    level: Type.Optional(Level),
    reason: Type.Optional(Reason),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const ApproveBody = Type.Union([
  Type.Object({ reason: Type.Optional(Reason), level: Type.Optional(Level) }, { additionalProperties: false }),
  Type.Null(),
]);
/** The spec's review routes take only the path: the body and its reason are optional. */
export const ReasonBody = Type.Object({ reason: Type.Optional(Reason) }, { additionalProperties: false });

export const KycIdParam = Type.Object({ kycId: Type.String({ format: 'uuid' }) });
export const KycIdQuery = Type.Object({ kycId: Type.String({ format: 'uuid' }) }, { additionalProperties: false });
export const UserKycQuery = Type.Object(
  { userId: Type.String({ format: 'uuid' }), ...PageQueryFields },
  { additionalProperties: false },
);
export const AttemptsQuery = Type.Object({ ...PageQueryFields }, { additionalProperties: false });
export const ListKycsQuery = Type.Object(
  {
    ...PageQueryFields,
    status: Type.Optional(KycStatusSchema),
    userId: Type.Optional(Type.String({ format: 'uuid' })),
    provider: Type.Optional(literals(['idv-a', 'idv-b', 'manual'] as const)),
  },
  { additionalProperties: false },
);

export const Web3ChallengeBody = Type.Object(
  {
    address: Type.String({ minLength: 25, maxLength: 64 }),
    chain: literals(['evm', 'xrpl'] as const),
    chainId: Type.Optional(Type.Integer({ minimum: 1, maximum: 2 ** 31, description: 'EVM chain id, default 1' })),
  },
  { additionalProperties: false },
);
export const Web3Challenge = Type.Object({
  ...SessionCreated.properties,
  chain: Type.String(),
  address: Type.String(),
  message: Type.String({ description: 'Text to sign: EIP-4361 for EVM; for XRPL, sign its UTF-8 bytes with the account key' }),
  nonce: Type.String(),
});

// Webhooks: providers may add fields, so unknown properties are accepted and ignored.
export const IdvAEventWebhook = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 200, description: 'Provider session id' }),
  action: literals(IDV_A_ACTIONS),
  vendorData: Type.String({ minLength: 1, maxLength: 400 }),
  attemptId: Type.Optional(Type.String()),
  code: Type.Optional(Type.Integer()),
});
const Person = Type.Object({
  firstName: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  lastName: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  dateOfBirth: Type.Optional(Nullable(Type.String({ maxLength: 20 }))),
});
const Document = Type.Object({
  country: Type.Optional(Nullable(Type.String({ maxLength: 10 }))),
  type: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
});
export const IdvADecisionWebhook = Type.Object({
  status: Type.String(),
  verification: Type.Object({
    id: Type.String({ minLength: 1, maxLength: 200 }),
    status: literals(IDV_A_DECISIONS),
    vendorData: Type.String({ minLength: 1, maxLength: 400 }),
    code: Type.Optional(Type.Integer()),
    reason: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
    decisionTime: Type.Optional(Type.String()),
    person: Type.Optional(Person),
    document: Type.Optional(Document),
  }),
});
export const IdvBResultWebhook = Type.Object({
  eventId: Type.String({ minLength: 1, maxLength: 200 }),
  sessionId: Type.String({ minLength: 1, maxLength: 200 }),
  reference: Type.String({ minLength: 1, maxLength: 200 }),
  status: literals(IDV_B_STATUSES),
  reason: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
  person: Type.Optional(Person),
  document: Type.Optional(Document),
  wallet: Type.Optional(
    Type.Object({
      chain: literals(['evm', 'xrpl'] as const),
      address: Type.String({ maxLength: 100 }),
      signature: Type.String({ maxLength: 2000 }),
      publicKey: Type.Optional(Type.String({ maxLength: 200 })),
    }),
  ),
});
export const TenantIdQuery = Type.Object({ tenantId: Type.String({ minLength: 1, maxLength: 100 }) });
export const WebhookAck = Type.Object({
  received: Type.Boolean(),
  applied: Type.Boolean(),
  outcome: Type.String({ description: "'applied', 'replay', or 'ignored: <why>'" }),
  status: Type.Optional(Type.String()),
});

export type KycAttemptDto = Static<typeof KycAttempt>;
export type KycAttemptDetailDto = Static<typeof KycAttemptDetail>;
export type SessionCreatedDto = Static<typeof SessionCreated>;
export type CreateSessionInput = Static<typeof SessionFields>;
export type InitiateKycInput = Static<typeof InitiateKycBody>;
export type UpdateKycInput = Static<typeof UpdateKycBody>;
export type Web3ChallengeInput = Static<typeof Web3ChallengeBody>;
export type Web3ChallengeDto = Static<typeof Web3Challenge>;
export type IdvAEvent = Static<typeof IdvAEventWebhook>;
export type IdvADecision = Static<typeof IdvADecisionWebhook>;
export type IdvBResult = Static<typeof IdvBResultWebhook>;
export type WebhookAckDto = Static<typeof WebhookAck>;
