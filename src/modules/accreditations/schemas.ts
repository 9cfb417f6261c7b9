import { Type, type Static } from 'typebox';
import { Paged, PageQueryFields } from '../../platform/http/pagination.js';
import { ACCREDITATION_TYPES } from './table.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const literals = <const T extends readonly string[]>(values: T) => Type.Enum<[...T]>(values);

export const AccreditationHistoryEntry = Type.Object({
  from: Nullable(Type.String()),
  to: Type.String(),
  actor: Type.Object({ type: Type.String(), id: Nullable(Type.String()) }),
  reason: Nullable(Type.String()),
  at: Type.String({ format: 'date-time' }),
});

export const Accreditation = Type.Object({
  id: Type.String({ format: 'uuid' }),
  userId: Type.String({ format: 'uuid' }),
  type: literals(ACCREDITATION_TYPES),
  documentIds: Type.Array(Type.String({ format: 'uuid' })),
  notes: Nullable(Type.String()),
  status: literals(['pending', 'approved', 'rejected'] as const),
  reason: Nullable(Type.String()),
  decidedAt: Nullable(Type.String({ format: 'date-time' })),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
  history: Type.Array(AccreditationHistoryEntry),
});

export const CreateAccreditationBody = Type.Object(
  {
    type: literals(ACCREDITATION_TYPES),
    documentIds: Type.Optional(Type.Array(Type.String({ format: 'uuid' }), { maxItems: 20, uniqueItems: true, description: 'Supporting user documents' })),
    notes: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
    userId: Type.Optional(Type.String({ format: 'uuid', description: 'Required with an API key; an admin token defaults to the admin itself; a plain user claims for themself' })),
  },
  { additionalProperties: false },
);

export const DecisionBody = Type.Object(
  {
    decision: literals(['approved', 'rejected'] as const),
    // The spec's request names only `decision`; a reason is stored when given.
    reason: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
  },
  { additionalProperties: false },
);

export const ListAccreditationsQuery = Type.Object(
  { userId: Type.String({ format: 'uuid' }), ...PageQueryFields },
  { additionalProperties: false },
);

export const PendingAccreditationsQuery = Type.Object({ ...PageQueryFields }, { additionalProperties: false });

export const AccreditationList = Paged(Accreditation);

export type AccreditationDto = Static<typeof Accreditation>;
export type CreateAccreditationInput = Static<typeof CreateAccreditationBody>;
export type DecisionInput = Static<typeof DecisionBody>;
