import { Type, type Static } from 'typebox';
import { Paged, PageQueryFields } from '../../platform/http/pagination.js';
import { PROFILE_STATUSES } from './table.js';

const literals = <const T extends readonly string[]>(values: T) => Type.Enum<[...T]>(values);
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const SubmitBusinessProfileBody = Type.Object(
  {
    tin: Type.String({ pattern: '^[0-9]{2}-?[0-9]{7}$', description: 'US EIN, nine digits (12-3456789); sealed at rest, never answered in full' }),
    people: Type.Optional(
      Type.Array(
        Type.Object(
          { name: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' }), titles: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 5 })) },
          { additionalProperties: false },
        ),
        { maxItems: 20, description: 'Officers and owners' },
      ),
    ),
    website: Type.Optional(Type.String({ format: 'uri', pattern: '^https?://', maxLength: 500 })),
  },
  { additionalProperties: false },
);

export const ReviewTask = Type.Object({
  key: Type.String(),
  category: Type.String(),
  label: Type.String(),
  status: literals(['success', 'failure', 'warning', 'pending'] as const),
  message: Type.String(),
});

export const BusinessProfile = Type.Object({
  id: Type.String({ format: 'uuid' }),
  entityId: Type.String({ format: 'uuid' }),
  provider: Type.Literal('business-profile-a'),
  providerBusinessId: Nullable(Type.String()),
  status: literals(PROFILE_STATUSES),
  tasks: Type.Array(ReviewTask),
  tin: Type.String({ description: 'Masked: the last four digits only' }),
  failure: Nullable(Type.String()),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

export const PendingBusinessProfilesQuery = Type.Object({ ...PageQueryFields }, { additionalProperties: false });
export const BusinessProfileList = Paged(BusinessProfile);

export const WebhookParams = Type.Object({ tenantId: Type.String({ maxLength: 100 }) });
export const WebhookAck = Type.Object({ received: Type.Boolean(), applied: Type.Boolean() });

export type SubmitBusinessProfileInput = Static<typeof SubmitBusinessProfileBody>;
export type BusinessProfileDto = Static<typeof BusinessProfile>;
