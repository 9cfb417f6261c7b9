import { Type, type Static } from 'typebox';
import { EVM_ADDRESS_PATTERN } from '../../platform/crypto/evm-address.js';
import { KeysetQueryFields, Paged } from '../../platform/http/pagination.js';
import { WALLET_CHAINS, WALLET_KINDS } from './table.js';

const literals = <const T extends readonly string[]>(values: T) => Type.Enum<[...T]>(values);
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

/** A wallet of any kind as the API answers it (never a key). */
export const Wallet = Type.Object({
  walletId: Type.String({ format: 'uuid', description: 'The id custody and transfer routes take as walletId' }),
  userId: Type.String({ format: 'uuid' }),
  kind: literals(WALLET_KINDS),
  chain: literals(WALLET_CHAINS),
  network: Type.String({ description: 'EVM: the chain id in decimal; XRPL: the network id' }),
  chainId: Nullable(Type.Integer({ description: 'EVM chain id (null for XRPL)' })),
  address: Type.String({ description: 'EIP-55 checksummed for EVM; the classic address for XRPL' }),
  vaultId: Nullable(Type.String()),
  details: Type.Record(Type.String(), Type.Unknown()),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

const EvmAddress = Type.String({ pattern: EVM_ADDRESS_PATTERN, description: 'EVM address (any case; answered EIP-55)' });

export const ChallengeQuery = Type.Object(
  { address: Type.Optional(EvmAddress) },
  { additionalProperties: false },
);

export const Challenge = Type.Object({
  domain: Type.String({ description: "RFC 3986 authority the message must name: the tenant's app host, else this service's" }),
  uri: Type.String(),
  version: Type.Literal('1'),
  chainId: Type.Integer(),
  nonce: Type.String({ description: 'Single use; valid 10 minutes; bound to the calling user' }),
  issuedAt: Type.String({ format: 'date-time' }),
  expirationTime: Type.String({ format: 'date-time' }),
  statement: Type.String(),
  message: Nullable(Type.String({ description: 'The EIP-4361 message to sign, when `address` was given' })),
});

export const RegisterEoaBody = Type.Object(
  {
    message: Type.String({ minLength: 1, maxLength: 4096, description: 'The EIP-4361 message, as signed' }),
    signature: Type.String({
      pattern: '^0x([0-9a-fA-F]{2})+$',
      maxLength: 20_002,
      description: 'personal_sign (EIP-191) signature: 65 bytes for a key; any length for a contract wallet (EIP-1271, ERC-6492)',
    }),
  },
  { additionalProperties: false },
);

export const ListEoasQuery = Type.Object(
  {
    ...KeysetQueryFields,
    userId: Type.Optional(Type.String({ format: 'uuid', description: 'Required with an API key or an admin token' })),
  },
  { additionalProperties: false },
);

export const WalletList = Paged(Wallet);

export type WalletDto = Static<typeof Wallet>;
export type ChallengeDto = Static<typeof Challenge>;
export type RegisterEoaInput = Static<typeof RegisterEoaBody>;
