import { Type, type Static } from 'typebox';

const Hex32 = Type.String({ pattern: '^0x[0-9a-f]{64}$' });

export const IdentityQuery = Type.Object(
  { userId: Type.Optional(Type.String({ format: 'uuid', description: 'With an API key or admin token: whose root; a plain user gets their own' })) },
  { additionalProperties: false },
);
export const ProofQuery = Type.Object(
  {
    path: Type.String({ minLength: 1, maxLength: 200, description: 'Field path, e.g. kyc.status' }),
    userId: Type.Optional(Type.String({ format: 'uuid' })),
  },
  { additionalProperties: false },
);

export const IdentityRoot = Type.Object({
  root: Hex32,
  version: Type.Integer({ minimum: 1 }),
  leafEncoding: Type.Array(Type.String(), { description: "StandardMerkleTree leaf types: ['string', 'bytes32']" }),
  computedAt: Type.String({ format: 'date-time' }),
  paths: Type.Array(Type.String(), { description: 'The fields that are leaves of this root' }),
  history: Type.Array(Type.Object({ version: Type.Integer(), root: Hex32, computedAt: Type.String({ format: 'date-time' }) }), {
    description: 'Every root of the user, newest first (at most 100)',
  }),
});

export const IdentityProof = Type.Object({
  root: Hex32,
  version: Type.Integer({ minimum: 1 }),
  path: Type.String(),
  value: Type.String(),
  salt: Hex32,
  commitment: Type.String({ description: 'keccak256(abi.encode(bytes32 salt, string value)), the second item of the leaf' }),
  leafEncoding: Type.Array(Type.String()),
  leaf: Type.String({ description: 'keccak256(keccak256(abi.encode(string path, bytes32 commitment))), as MerkleProof.verify takes it' }),
  proof: Type.Array(Type.String()),
});

export type IdentityRootDto = Static<typeof IdentityRoot>;
export type IdentityProofDto = Static<typeof IdentityProof>;
