import { createHash, randomBytes } from 'node:crypto';
import { hexToBytes, type Hex } from 'viem';
import { createSiweMessage, parseSiweMessage, verifySiweMessage } from 'viem/siwe';
import type { CallContext } from '../../platform/http/context.js';
import type { Actor } from '../../platform/audit/actor.js';
import type { Clock } from '../../platform/clock.js';
import { parseEvmAddress } from '../../platform/crypto/evm-address.js';
import type { RunInTx } from '../../platform/db/tx.js';
import type { TenantContext } from '../../platform/http/guards.js';
import type { Page, PageParams } from '../../platform/http/pagination.js';
import { enforceRateLimit, type RateLimiter } from '../../platform/ratelimit/limiter.js';
import { ERC6492_SUFFIX, isChainFailure, type EvmChainPort } from '../../providers/evm-chain/port.js';
import type { UsersService } from '../users/service.js';
import { SiweErrors, WalletErrors } from './errors.js';
import type { WalletsRepo } from './repo.js';
import type { ChallengeDto, RegisterEoaInput, WalletDto } from './schemas.js';
import { toWalletDto, type WalletsService } from './service.js';

export const SIWE_NONCE_TTL_MS = 10 * 60_000;
/** Expired nonces are kept a day, so a late use is told "expired" rather than "unknown". */
const EXPIRED_NONCE_KEPT_MS = 24 * 60 * 60_000;
/** Challenges a user may ask for in 10 minutes (each is a stored row). */
export const CHALLENGES_PER_WINDOW = 30;
const STATEMENT = 'Register this address as my wallet.';
/** secp256k1 group order / 2: an ECDSA signature with a larger s is the malleated twin of a valid one. */
const SECP256K1_HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;


const hashNonce = (nonce: string) => createHash('sha256').update(nonce, 'utf8').digest('hex');

/** The SIWE `domain` and `uri`: the tenant's app (settings.appUrl) when set, else this service. */
export function siweOrigin(tenant: TenantContext, publicBaseUrl: string): { domain: string; uri: string } {
  const appUrl = typeof tenant.settings.appUrl === 'string' ? tenant.settings.appUrl : undefined;
  const base = appUrl ?? publicBaseUrl;
  return { domain: new URL(base).host, uri: base };
}

/** Rejects a 65-byte ECDSA signature whose s is in the upper half (EIP-2) or whose v is not 27/28 (0/1). */
function checkSignatureShape(signature: Hex): void {
  const bytes = hexToBytes(signature);
  if (bytes.length !== 65) return; // a contract wallet's signature, checked by the contract
  const s = BigInt('0x' + signature.slice(2 + 64, 2 + 128));
  const v = bytes[64]!;
  if (![0, 1, 27, 28].includes(v)) throw SiweErrors.signatureInvalid();
  if (s > SECP256K1_HALF_N) throw SiweErrors.signatureMalleated();
}


/**
 * The /evm-eoas routes: EOAs (and smart-contract wallets) registered by Sign-In with Ethereum
 * (EIP-4361). The challenge issues a single-use nonce; registration checks the message against
 * what was issued, verifies the signature through the chain (EIP-1271, ERC-6492), and consumes
 * the nonce and registers the wallet in one transaction.
 */
export function createEvmEoaService(deps: {
  repo: WalletsRepo;
  tx: RunInTx;
  clock: Clock;
  users: UsersService;
  wallets: WalletsService;
  chain: () => Promise<EvmChainPort>;
  chainId: number;
  publicBaseUrl: () => string;
  limiter: RateLimiter;
}) {
  const { repo, tx, clock, users, wallets, chainId, limiter } = deps;

  async function chainOrUnavailable(): Promise<EvmChainPort> {
    try {
      return await deps.chain();
    } catch {
      throw WalletErrors.chainUnavailable();
    }
  }

  return {
    async challenge(tenant: TenantContext, userId: string, address?: string): Promise<ChallengeDto> {
      const evmAddress = address === undefined ? undefined : parseEvmAddress(address);
      if (address !== undefined && !evmAddress) throw WalletErrors.addressInvalid('EVM');
      await enforceRateLimit(limiter, `siwe-challenge:${tenant.id}:${userId}`, CHALLENGES_PER_WINDOW, SIWE_NONCE_TTL_MS);
      const { domain, uri } = siweOrigin(tenant, deps.publicBaseUrl());
      const nonce = randomBytes(16).toString('hex');
      const issuedAt = clock.now();
      const expirationTime = new Date(issuedAt.getTime() + SIWE_NONCE_TTL_MS);
      await repo.insertNonce(
        tenant.id,
        { nonceHash: hashNonce(nonce), userId, domain, uri, chainId, issuedAt, expiresAt: expirationTime, consumedAt: null },
        new Date(issuedAt.getTime() - EXPIRED_NONCE_KEPT_MS),
      );
      const message = evmAddress
        ? createSiweMessage({ address: evmAddress, chainId, domain, nonce, uri, version: '1', issuedAt, expirationTime, statement: STATEMENT })
        : null;
      return {
        domain,
        uri,
        version: '1',
        chainId,
        nonce,
        issuedAt: issuedAt.toISOString(),
        expirationTime: expirationTime.toISOString(),
        statement: STATEMENT,
        message,
      };
    },

    async register(tenant: TenantContext, userId: string, input: RegisterEoaInput, actor: Actor): Promise<{ wallet: WalletDto; created: boolean }> {
      const parsed = parseSiweMessage(input.message);
      const missing = (['domain', 'address', 'uri', 'version', 'chainId', 'nonce', 'issuedAt'] as const).filter((f) => parsed[f] === undefined);
      if (missing.length > 0) throw SiweErrors.messageInvalid(`missing ${missing.join(', ')}`);
      if (parsed.version !== '1') throw SiweErrors.messageInvalid('version must be 1');
      const address = parseEvmAddress(parsed.address);
      if (!address) throw SiweErrors.messageInvalid('the address is not an EVM address in one case or with a valid EIP-55 checksum');
      if (!/^[a-zA-Z0-9]{8,}$/.test(parsed.nonce!)) throw SiweErrors.messageInvalid('the nonce must be 8 or more letters and digits');
      for (const field of ['issuedAt', 'expirationTime', 'notBefore'] as const) {
        if (parsed[field] && Number.isNaN(parsed[field].getTime())) throw SiweErrors.messageInvalid(`${field} is not a date`);
      }

      const nonceHash = hashNonce(parsed.nonce!);
      const issued = await repo.findNonce(tenant.id, nonceHash);
      if (!issued) throw SiweErrors.nonceUnknown();
      if (issued.userId !== userId) throw SiweErrors.nonceForeign();
      if (issued.consumedAt) throw SiweErrors.nonceUsed();
      if (parsed.domain !== issued.domain) throw SiweErrors.domainMismatch(issued.domain);
      if (parsed.uri !== issued.uri) throw SiweErrors.uriMismatch(issued.uri);
      if (parsed.chainId !== issued.chainId) throw SiweErrors.chainMismatch(issued.chainId);
      const now = clock.now();
      if (parsed.expirationTime && now >= parsed.expirationTime) throw SiweErrors.messageExpired();
      if (parsed.notBefore && now < parsed.notBefore) throw SiweErrors.notYetValid();
      if (issued.expiresAt <= now) throw SiweErrors.nonceExpired();

      const signature = input.signature as Hex;
      checkSignatureShape(signature);
      const chain = await chainOrUnavailable();
      let verified: boolean;
      let signer: 'eoa' | 'contract' | 'counterfactual';
      try {
        verified = await verifySiweMessage(chain.publicClient, { message: input.message, signature, domain: issued.domain, nonce: parsed.nonce, time: now });
        const code = verified ? await chain.publicClient.getCode({ address }) : undefined;
        signer = code && code !== '0x' ? 'contract' : signature.toLowerCase().endsWith(ERC6492_SUFFIX) ? 'counterfactual' : 'eoa';
      } catch (error) {
        if (isChainFailure(error)) throw WalletErrors.chainUnavailable();
        throw SiweErrors.signatureInvalid();
      }
      if (!verified) throw SiweErrors.signatureInvalid();

      return tx(async (db) => {
        // Claimed here, with the wallet: a failed registration (409) leaves the nonce unused.
        if (!(await repo.consumeNonce(tenant.id, nonceHash, userId, now, db))) throw SiweErrors.nonceUsed();
        const result = await wallets.register(tenant.id, userId, { kind: 'evm-eoa', chain: 'evm', chainId: issued.chainId, address, details: { signer } }, { actor, db });
        return { wallet: toWalletDto(result.wallet), created: result.created };
      });
    },

    /** A user's EOAs: the caller's own; an API key or admin names the user (an admin defaults to itself). */
    async list(ctx: CallContext, requestedUserId: string | undefined, page: PageParams): Promise<Page<WalletDto>> {
      return users.pageActingFor(ctx, requestedUserId, WalletErrors.userIdRequired, (userId) => wallets.pageForUser(ctx.tenantId, userId, { kind: 'evm-eoa' }, page));
    },
  };
}

export type EvmEoaService = ReturnType<typeof createEvmEoaService>;
