import { Type, type Static } from 'typebox';
import { Paged, PageQueryFields } from '../../platform/http/pagination.js';
import { PERMISSIONS } from './permissions.js';
import { ENTITY_TYPES } from './table.js';

const literals = <const T extends readonly string[]>(values: T) => Type.Enum<[...T]>(values);
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const Country = (description: string) => Type.String({ pattern: '^[A-Z]{2}$', description: `${description} (ISO 3166-1 alpha-2)` });
const Line = (max: number) => Type.String({ minLength: 1, maxLength: max, pattern: '\\S' });

export const PermissionSchema = literals(PERMISSIONS);

export const Address = Type.Object(
  {
    line1: Line(200),
    line2: Type.Optional(Line(200)),
    city: Line(100),
    region: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'State, province or region' })),
    postalCode: Type.Optional(Type.String({ minLength: 1, maxLength: 20 })),
    country: Country('Country'),
  },
  { additionalProperties: false },
);

const Metadata = Type.Record(Type.String({ maxLength: 100 }), Type.Unknown(), {
  maxProperties: 100,
  description: 'Free-form JSON object, at most 16 KiB serialized and 5 levels deep',
});

export const Entity = Type.Object({
  id: Type.String({ format: 'uuid' }),
  legalName: Type.String(),
  type: literals(ENTITY_TYPES),
  jurisdiction: Type.String(),
  registrationNumber: Type.String(),
  lei: Nullable(Type.String()),
  address: Address,
  metadata: Type.Record(Type.String(), Type.Unknown()),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
  permissions: Type.Array(PermissionSchema, { description: "The caller's effective permissions on the entity (every one for an API key or admin)" }),
});

export const CreateEntityBody = Type.Object(
  {
    legalName: Line(300),
    type: literals(ENTITY_TYPES),
    jurisdiction: Country('Jurisdiction of registration'),
    registrationNumber: Line(100),
    lei: Type.Optional(Type.String({ pattern: '^[A-Z0-9]{18}[0-9]{2}$', description: 'ISO 17442 LEI; the check digits are verified' })),
    address: Address,
    metadata: Type.Optional(Metadata),
    userId: Type.Optional(Type.String({ format: 'uuid', description: 'With an API key or admin token: the user who becomes the owner (required)' })),
  },
  { additionalProperties: false },
);

export const MetadataBody = Type.Object({ metadata: Metadata }, { additionalProperties: false });

export const ListEntitiesQuery = Type.Object(
  { userId: Type.Optional(Type.String({ format: 'uuid', description: "Only this user's entities (API key or admin; a user may name only themself)" })), ...PageQueryFields },
  { additionalProperties: false },
);

export const EntityList = Paged(Entity);

export const EntityMember = Type.Object({
  userId: Type.String({ format: 'uuid' }),
  email: Type.String(),
  fullName: Nullable(Type.String()),
  permissions: Type.Array(PermissionSchema),
  addedAt: Type.String({ format: 'date-time' }),
});
export const EntityMemberList = Type.Object({ total: Type.Integer({ minimum: 0 }), data: Type.Array(EntityMember) });

export const AddMemberBody = Type.Object(
  {
    userId: Type.String({ format: 'uuid' }),
    permissions: Type.Optional(Type.Array(PermissionSchema, { minItems: 1, maxItems: PERMISSIONS.length, uniqueItems: true, description: 'Default ["view"]' })),
  },
  { additionalProperties: false },
);

export const GrantBody = Type.Object({ permission: PermissionSchema }, { additionalProperties: false });

export const EntityParams = Type.Object({ id: Type.String({ format: 'uuid' }) });
export const MemberParams = Type.Object({ id: Type.String({ format: 'uuid' }), targetUserId: Type.String({ format: 'uuid' }) });
export const RevokeParams = Type.Object({
  entityId: Type.String({ format: 'uuid' }),
  targetUserId: Type.String({ format: 'uuid' }),
  permission: PermissionSchema,
});

export type EntityDto = Static<typeof Entity>;
export type EntityMemberDto = Static<typeof EntityMember>;
export type CreateEntityInput = Static<typeof CreateEntityBody>;
export type AddMemberInput = Static<typeof AddMemberBody>;
