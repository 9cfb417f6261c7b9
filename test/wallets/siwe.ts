import type { LightMyRequestResponse } from 'fastify';
import { createSiweMessage } from 'viem/siwe';
import type { LocalAccount } from 'viem';
import type { Harness } from '../helpers/harness.js';
import type { WalletsServices } from '../../src/modules/wallets/module.js';
import type { ChallengeDto } from '../../src/modules/wallets/schemas.js';

export function walletsOf(h: Harness): WalletsServices {
  const module = h.container.modules.find((m) => m.name === 'wallets');
  if (!module) throw new Error('the wallets module is not registered');
  return module.services as WalletsServices;
}

export async function getChallenge(h: Harness, token: string, address?: string): Promise<ChallengeDto> {
  const res = await h.inject({ method: 'GET', url: `/evm-eoas/challenge${address ? `?address=${address}` : ''}`, headers: h.bearerHeaders(token) });
  if (res.statusCode !== 200) throw new Error(`challenge: ${res.statusCode} ${res.body}`);
  return res.json() as ChallengeDto;
}

type MessageFields = Parameters<typeof createSiweMessage>[0];

/** The EIP-4361 message of a challenge for `address`, with any field overridden. */
export function messageFor(challenge: ChallengeDto, address: `0x${string}`, overrides: Partial<MessageFields> = {}): string {
  return createSiweMessage({
    address,
    chainId: challenge.chainId,
    domain: challenge.domain,
    nonce: challenge.nonce,
    uri: challenge.uri,
    version: '1',
    issuedAt: new Date(challenge.issuedAt),
    expirationTime: new Date(challenge.expirationTime),
    statement: challenge.statement,
    ...overrides,
  });
}

export function postEoa(h: Harness, token: string, body: unknown): Promise<LightMyRequestResponse> {
  return h.inject({ method: 'POST', url: '/evm-eoas', headers: h.bearerHeaders(token), payload: body as object });
}

/** Challenge, sign with `account` (message for `address`, the account's own by default), register. */
export async function signIn(
  h: Harness,
  token: string,
  account: LocalAccount,
  options: { address?: `0x${string}`; overrides?: Partial<MessageFields> } = {},
): Promise<LightMyRequestResponse> {
  const challenge = await getChallenge(h, token);
  const message = messageFor(challenge, options.address ?? account.address, options.overrides);
  const signature = await account.signMessage({ message });
  return postEoa(h, token, { message, signature });
}

/** The address with the case of its first hex letter flipped: mixed case with a broken EIP-55 checksum. */
export function flipFirstLetter(address: string): string {
  const i = [...address].findIndex((c, index) => index > 1 && /[a-fA-F]/.test(c));
  const c = address[i]!;
  return address.slice(0, i) + (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) + address.slice(i + 1);
}
