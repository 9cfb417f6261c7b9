import { Type, type Static, type TSchema } from 'typebox';
import { Compile } from 'typebox/compile';

/**
 * The payload of each outbox event type, one TypeBox schema per type. `appendEvent` takes the
 * payload typed by it and checks it before the insert, so a payload that drifts from its schema
 * fails the change (a 500 and a test failure) instead of reaching the tenants' endpoints.
 * test/events/payloads.test.ts drives the flows and checks the stored rows against these.
 */
const Id = Type.String({ minLength: 1 });
const NullableString = Type.Union([Type.String(), Type.Null()]);
const Strings = Type.Array(Type.String());
/** Who made the change (src/platform/audit/actor.ts). */
const Actor = Type.Object(
  { type: Type.Union([Type.Literal('user'), Type.Literal('apiKey'), Type.Literal('provider'), Type.Literal('system')]), id: NullableString },
  { additionalProperties: false },
);
const closed = <T extends Record<string, TSchema>>(properties: T) => Type.Object(properties, { additionalProperties: false });

const UserEmail = closed({ userId: Id, email: Type.String() });
const KycTransition = closed({ kycId: Id, userId: Id, provider: Type.String(), from: NullableString, to: Type.String(), reason: NullableString, actor: Actor });
const CustodyTransactionSubmitted = closed({
  kind: Type.Literal('custody-a.transaction'),
  transactionId: Id,
  vaultId: Id,
  walletId: Id,
  type: Type.String(),
  status: Type.String(),
  symbol: NullableString,
  qty: NullableString,
  destinationAddress: NullableString,
  actor: Actor,
});
const EvmTransferSubmitted = closed({
  kind: Type.Literal('non-custodial-evm'),
  transferId: Id,
  userId: Id,
  provider: Type.String(),
  assetType: Type.String(),
  amount: Type.String(),
  destinationId: Type.String(),
  status: Type.String(),
  actor: Actor,
});
const XrplSubmissionFacts = {
  kind: Type.Literal('xrpl-submission'),
  submissionId: Id,
  userId: Type.Union([Id, Type.Null()]),
  network: Type.String(),
  hash: Type.String(),
  account: Type.String(),
  transactionType: Type.String(),
  sequence: Type.Integer(),
  status: Type.String(),
};
const XrplSubmissionSubmitted = closed({ ...XrplSubmissionFacts, actor: Actor });
const CustodyBBroadcastSubmitted = closed({
  kind: Type.Literal('custody-b.broadcast'),
  walletId: Id,
  userId: Id,
  address: Type.String(),
  network: Type.String(),
  transactionId: Type.String(),
  txHash: NullableString,
  status: Type.String(),
  actor: Actor,
});
const TransferFinal = Type.Union([
  closed({ ...XrplSubmissionFacts, engineResult: NullableString, result: NullableString, ledgerIndex: Type.Union([Type.Integer(), Type.Null()]) }),
  closed({ kind: Type.Literal('custody-a.transaction'), transactionId: Id, vaultId: Id, walletId: Id, status: Type.String(), hash: NullableString }),
  closed({ kind: Type.Literal('non-custodial-evm'), transferId: Id, userId: Id, provider: Type.String(), status: Type.String(), hash: NullableString }),
]);
const EntityMember = closed({ entityId: Id, userId: Id, permissions: Type.Optional(Strings), permission: Type.Optional(Type.String()), actor: Actor });
const PaymentMethod = closed({ entityId: Id, methodId: Id, kind: Type.String(), changed: Strings, archived: Type.Boolean(), actor: Actor });

export const EVENT_PAYLOADS = {
  'user.created': UserEmail,
  'user.updated': closed({ userId: Id, fields: Strings }),
  'user.email_verified': UserEmail,
  'kyc.created': KycTransition,
  'kyc.updated': closed({ kycId: Id, userId: Id, fields: Strings, actor: Actor, reason: NullableString }),
  'kyc.started': KycTransition,
  'kyc.submitted': KycTransition,
  'kyc.review': KycTransition,
  'kyc.approved': KycTransition,
  'kyc.declined': KycTransition,
  'kyc.resubmission_requested': KycTransition,
  'kyc.expired': KycTransition,
  'kyc.abandoned': KycTransition,
  'accreditation.submitted': closed({ accreditationId: Id, userId: Id, type: Type.String(), actor: Actor }),
  'accreditation.decided': closed({ accreditationId: Id, userId: Id, decision: Type.String(), reason: NullableString, actor: Actor }),
  'wallet.registered': closed({
    walletId: Id,
    userId: Id,
    kind: Type.String(),
    chain: Type.String(),
    network: NullableString,
    address: Type.String(),
    vaultId: NullableString,
    actor: Actor,
  }),
  'document.uploaded': Type.Union([
    closed({ documentId: Id, kind: Type.Literal('user'), userId: Id, type: Type.String(), sha256: Type.String(), mediaType: Type.String(), size: Type.Integer(), actor: Actor }),
    closed({ documentId: Id, kind: Type.Literal('tenant'), sha256: Type.String(), mediaType: Type.String(), size: Type.Integer(), actor: Actor }),
  ]),
  'document.signed': closed({
    signedDocumentId: Id,
    documentId: Id,
    userId: Id,
    chainType: Type.String(),
    address: Type.String(),
    documentSha256: Type.String(),
    scheme: Type.String(),
  }),
  'transfer.submitted': Type.Union([CustodyTransactionSubmitted, EvmTransferSubmitted, XrplSubmissionSubmitted, CustodyBBroadcastSubmitted]),
  'transfer.completed': TransferFinal,
  'transfer.failed': TransferFinal,
  'custody.vault_created': closed({ vaultId: Id, userId: Id, provider: Type.String(), walletIds: Strings, actor: Actor }),
  'entity.created': closed({ entityId: Id, ownerUserId: Id, type: Type.String(), actor: Actor }),
  'entity.updated': closed({ entityId: Id, fields: Strings, actor: Actor }),
  'entity.member_added': EntityMember,
  'entity.member_removed': EntityMember,
  'entity.permission_granted': EntityMember,
  'entity.permission_revoked': EntityMember,
  'entity.payment_method_added': PaymentMethod,
  'entity.payment_method_updated': PaymentMethod,
  'entity.business_profile_submitted': closed({ entityId: Id, profileId: Id, providerBusinessId: Type.String(), status: Type.String(), actor: Actor }),
  'entity.business_profile_updated': closed({
    entityId: Id,
    profileId: Id,
    providerBusinessId: Type.String(),
    from: Type.String(),
    status: Type.String(),
    eventId: Type.String(),
  }),
  'bank_link.item_linked': closed({ itemId: Id, userId: NullableString, institutionId: NullableString, accounts: Type.Integer() }),
  'bank_link.item_removed': closed({ itemId: Id, userId: NullableString }),
  'bank_link.item_updated': closed({ itemId: Id, userId: NullableString, status: Type.String(), errorCode: Type.Optional(NullableString), webhookCode: Type.String() }),
  'bank_link.originator_updated': closed({ originatorId: Type.String(), diligenceStatus: Type.String() }),
} as const;

/**
 * The test event (`endpoint.test`, TEST_EVENT_TYPE in outbox.ts): sent on request
 * (POST /event-endpoints/{id}/test) to that one endpoint only, signed like every event. It is
 * not one of EVENT_TYPES: no filter chooses it, it is never fanned out, never in GET /events.
 */
export const TEST_EVENT_PAYLOAD = closed({
  endpointId: Id,
  message: Type.String(),
  actor: Actor,
});
export type TestEventPayload = Static<typeof TEST_EVENT_PAYLOAD>;

export type EventPayloads = typeof EVENT_PAYLOADS;
export type EventPayload<T extends keyof EventPayloads> = Static<EventPayloads[T]>;

const validators = new Map(Object.entries(EVENT_PAYLOADS).map(([type, schema]) => [type, Compile(schema as TSchema)]));

const testValidator = Compile(TEST_EVENT_PAYLOAD);

/** The first problem of a test event's payload, or null when it matches. */
export function testPayloadProblem(payload: unknown): string | null {
  if (testValidator.Check(payload)) return null;
  const first = testValidator.Errors(payload)[0];
  return first ? `${first.instancePath || '/'} ${first.message}` : 'does not match its schema';
}

/** The first problem of a payload against its type's schema, or null when it matches. */
export function payloadProblem(type: keyof EventPayloads, payload: unknown): string | null {
  const validator = validators.get(type);
  if (!validator) return `unknown event type ${type}`;
  if (validator.Check(payload)) return null;
  const first = validator.Errors(payload)[0];
  return first ? `${first.instancePath || '/'} ${first.message}` : 'does not match its schema';
}
