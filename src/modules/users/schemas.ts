import { Type, type Static } from 'typebox';
import { KeysetQueryFields, Paged } from '../../platform/http/pagination.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const Email = Type.String({ format: 'email', minLength: 3, maxLength: 254, description: 'Email address; compared case-insensitively' });
export const FullName = Type.String({ minLength: 1, maxLength: 200 });
export const Phone = Type.String({ minLength: 3, maxLength: 32, description: 'International format; stored as E.164' });

export const WalletAddresses = Type.Object({
  evm: Nullable(Type.String({ description: 'EVM address' })),
  evmCompatible: Nullable(Type.String({ description: 'Address on the further EVM-compatible chain' })),
  xrpl: Nullable(Type.String({ description: 'XRPL address' })),
});

export const User = Type.Object({
  id: Type.String({ format: 'uuid' }),
  email: Type.String(),
  fullName: Nullable(Type.String()),
  phone: Nullable(Type.String()),
  role: Type.Union([Type.Literal('user'), Type.Literal('admin')]),
  emailVerified: Type.Boolean(),
  kycStatus: Nullable(Type.String()),
  evmEoa: Nullable(Type.String()),
  xrplSecureAccountAddress: Nullable(Type.String()),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

/** The full profile: the user and its relations (more appear as their modules land). */
export const UserProfile = Type.Object({
  ...User.properties,
  walletAddresses: WalletAddresses,
});

export const CreateUserBody = Type.Object(
  { email: Email, fullName: Type.Optional(FullName) },
  { additionalProperties: false },
);

/** Fields a caller may edit. Anything else (id, tenant, role, email, flags) is rejected. */
export const UpdateUserBody = Type.Object(
  { fullName: Type.Optional(Nullable(FullName)), phone: Type.Optional(Nullable(Phone)) },
  { additionalProperties: false },
);

export const ListUsersQuery = Type.Object(
  {
    ...KeysetQueryFields,
    email: Type.Optional(Type.String({ maxLength: 254, description: 'Exact match (case-insensitive)' })),
    evmEoa: Type.Optional(Type.String({ maxLength: 64 })),
    xrplSecureAccountAddress: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);

export const UserList = Paged(User);
export const UserIdParam = Type.Object({ userId: Type.String({ format: 'uuid' }) });

export type UserDto = Static<typeof User>;
export type UserProfileDto = Static<typeof UserProfile>;
export type WalletAddressesDto = Static<typeof WalletAddresses>;
export type CreateUserInput = Static<typeof CreateUserBody>;
export type UpdateUserInput = Static<typeof UpdateUserBody>;
export type ListUsersFilters = Static<typeof ListUsersQuery>;
