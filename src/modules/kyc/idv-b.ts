import { createSiweMessage, generateSiweNonce } from 'viem/siwe';
import type { Clock } from '../../platform/clock.js';
import { newId } from '../../platform/clock.js';
import { isValidAddress, normalizeAddress, verifyWalletSignature, type Chain } from '../../platform/crypto/wallet-signatures.js';
import type { RunInTx } from '../../platform/db/tx.js';
import type { Providers } from '../../platform/providers/service.js';
import type { IdvWebhook } from '../../providers/idv/port.js';
import type { UsersService } from '../users/service.js';
import { KycErrors } from './errors.js';
import type { SessionCreatedDto, Web3ChallengeDto, Web3ChallengeInput } from './schemas.js';
import { sessionCreated, type KycCaller } from './service.js';
import { SESSION_TTL_MS } from './state.js';
import type { KycRow } from './table.js';
import type { KycTransitions } from './transitions.js';

const STATEMENT = 'Link this wallet to your identity verification.';

/** The text the wallet signs: EIP-4361 (Sign-In with Ethereum) for EVM, the same fields as plain text for XRPL. */
export function walletChallenge(input: {
  chain: Chain;
  address: string;
  chainId: number;
  publicBaseUrl: string;
  nonce: string;
  issuedAt: Date;
  expiresAt: Date;
}): string {
  const url = new URL(input.publicBaseUrl);
  if (input.chain === 'evm') {
    return createSiweMessage({
      address: input.address as `0x${string}`,
      chainId: input.chainId,
      domain: url.host,
      uri: input.publicBaseUrl,
      nonce: input.nonce,
      version: '1',
      statement: STATEMENT,
      issuedAt: input.issuedAt,
      expirationTime: input.expiresAt,
    });
  }
  return [
    `${url.host} wants you to sign with your XRPL account:`,
    input.address,
    '',
    STATEMENT,
    '',
    `URI: ${input.publicBaseUrl}`,
    `Nonce: ${input.nonce}`,
    `Issued At: ${input.issuedAt.toISOString()}`,
    `Expiration Time: ${input.expiresAt.toISOString()}`,
  ].join('\n');
}

/** Checks a wallet proof from an idv-b result against the challenge stored on the record. */
export async function verifyRecordWallet(row: KycRow, wallet: NonNullable<IdvWebhook['wallet']>): Promise<boolean> {
  if (!row.challenge || !row.walletAddress || wallet.chain !== row.walletChain) return false;
  if (!isValidAddress(wallet.chain, wallet.address) || normalizeAddress(wallet.chain, wallet.address) !== row.walletAddress) return false;
  return verifyWalletSignature({
    chain: wallet.chain,
    address: row.walletAddress,
    message: row.challenge,
    signature: wallet.signature,
    publicKey: wallet.publicKey,
  });
}

/** idv-b (wallet style): a web3 session bound to a signed wallet challenge, or a regular session. */
export function createIdvBService(deps: {
  tx: RunInTx;
  clock: Clock;
  users: UsersService;
  providers: Providers;
  transitions: KycTransitions;
  publicBaseUrl: () => string;
}) {
  const { tx, clock, users, providers, transitions, publicBaseUrl } = deps;

  /** Opens the session at idv-b for the calling user (who must exist), then records it. */
  async function start(ctx: KycCaller, wallet?: { chain: Chain; address: string; chainId: number }): Promise<{ row: KycRow; nonce?: string }> {
    const { tenantId, actor } = ctx;
    const userId = await users.actingFor(ctx, undefined, KycErrors.userIdRequired);
    const kycId = newId();
    const now = clock.now();
    const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
    const base = publicBaseUrl();
    let challenge: { chain: Chain; address: string; message: string; nonce: string } | undefined;
    if (wallet) {
      const address = normalizeAddress(wallet.chain, wallet.address);
      const nonce = generateSiweNonce();
      const message = walletChallenge({ ...wallet, address, publicBaseUrl: base, nonce, issuedAt: now, expiresAt });
      challenge = { chain: wallet.chain, address, message, nonce };
    }
    const idv = await providers.port(tenantId, 'idv', 'idv-b');
    const session = await idv.createSession({
      kycId,
      callbackBaseUrl: base,
      flow: challenge ? 'web3' : 'regular',
      ...(challenge ? { wallet: { chain: challenge.chain, address: challenge.address, message: challenge.message } } : {}),
    });
    const row = await tx((db) =>
      transitions.create(
        db,
        tenantId,
        {
          id: kycId,
          userId,
          provider: 'idv-b',
          flow: challenge ? 'web3' : 'regular',
          providerSessionId: session.sessionId,
          sessionUrl: session.url,
          walletAddress: challenge?.address ?? null,
          walletChain: challenge?.chain ?? null,
          challenge: challenge?.message ?? null,
          expiresAt,
          createdAt: now,
          updatedAt: now,
        },
        actor,
      ),
    );
    return { row, nonce: challenge?.nonce };
  }

  return {
    async web3Challenge(ctx: KycCaller, input: Web3ChallengeInput): Promise<Web3ChallengeDto> {
      if (!isValidAddress(input.chain, input.address)) throw KycErrors.invalidAddress(input.chain);
      const { row, nonce } = await start(ctx, { chain: input.chain, address: input.address, chainId: input.chainId ?? 1 });
      return { ...sessionCreated(row), chain: row.walletChain!, address: row.walletAddress!, message: row.challenge!, nonce: nonce! };
    },

    async regularChallenge(ctx: KycCaller): Promise<SessionCreatedDto> {
      return sessionCreated((await start(ctx)).row);
    },
  };
}

export type IdvBService = ReturnType<typeof createIdvBService>;
