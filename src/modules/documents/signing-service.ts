import { auditActor } from '../../platform/audit/actor.js';
import { randomBytes } from 'node:crypto';
import { hexToBytes, type Hex } from 'viem';
import { parseEvmAddress } from '../../platform/crypto/evm-address.js';
import type { Actor } from '../../platform/audit/actor.js';
import { newId, type Clock } from '../../platform/clock.js';
import { isValidAddress, normalizeAddress, verifyXrplMessage } from '../../platform/crypto/wallet-signatures.js';
import { isUniqueViolation } from '../../platform/db/pg-errors.js';
import type { RunInTx } from '../../platform/db/tx.js';
import { appendEvent } from '../../platform/events/outbox.js';
import type { Page, PageParams } from '../../platform/http/pagination.js';
import { enforceRateLimit, type RateLimiter } from '../../platform/ratelimit/limiter.js';
import { ERC6492_SUFFIX, isChainFailure, type EvmChainPort } from '../../providers/evm-chain/port.js';
import type { XrplLedgerPort } from '../../providers/xrpl-ledger/port.js';
import type { AuditService } from '../audit/service.js';
import { DocumentErrors } from './errors.js';
import type { DocumentsRepo } from './repo.js';
import type { EvmSignInput, SignedDocumentDto, SigningMessageDto, XrplSignInput } from './schemas.js';
import type { CallContext } from '../../platform/http/context.js';
import { ownedBy } from '../users/acting-for.js';
import { canonicalMessage, messageHex, SIGNING_TTL_MS, typedDataFor, type SigningFacts } from './signing.js';
import { SIGNING_CHAINS, type SignedDocumentRow, type SigningChain, type SigningNonceRow } from './table.js';

/** Expired nonces are kept a day, so a late use is told "expired" rather than "unknown". */
const EXPIRED_NONCE_KEPT_MS = 24 * 60 * 60_000;
/** Signing messages a user may ask for per window (each is a stored row). */
const MESSAGES_PER_WINDOW = 60;
const SECP256K1_HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

export function toSignedDto(row: SignedDocumentRow): SignedDocumentDto {
  return {
    id: row.id,
    documentId: row.documentId,
    userId: row.userId,
    chainType: row.chain,
    address: row.address,
    scheme: row.scheme,
    signerKind: row.signerKind,
    documentSha256: row.documentSha256,
    payload: row.payload,
    signature: row.signature,
    publicKey: row.publicKey,
    nonce: row.nonce,
    signedAt: row.signedAt.toISOString(),
  };
}

/**
 * Signing of tenant documents: a single-use, expiring message bound to the tenant, the
 * document (id and SHA-256) and the signer's address; verified with viem through the chain's
 * public client (EOAs, EIP-1271 contracts, ERC-6492) or with ripple-keypairs (XRPL master key,
 * or the account's regular key read from the ledger). The nonce is consumed and the signed
 * document recorded (audit row and `document.signed` event) in one transaction.
 */
export function createSigningService(deps: {
  repo: DocumentsRepo;
  tx: RunInTx;
  clock: Clock;
  audit: AuditService;
  limiter: RateLimiter;
  chainId: number;
  evmChain: () => Promise<EvmChainPort>;
  xrplLedger: XrplLedgerPort;
}) {
  const { repo, tx, clock, audit, chainId } = deps;

  function describe(facts: SigningFacts): SigningMessageDto {
    const message = canonicalMessage(facts);
    return {
      documentId: facts.documentId,
      tenantId: facts.tenantId,
      chainType: facts.chain,
      address: facts.address,
      documentSha256: facts.documentSha256,
      nonce: facts.nonce,
      issuedAt: facts.issuedAt.toISOString(),
      expiresAt: facts.expiresAt.toISOString(),
      message,
      messageHex: messageHex(message),
      ...(facts.chain === 'evm' ? { typedData: typedDataFor(facts, chainId) as unknown as SigningMessageDto['typedData'] } : {}),
    };
  }

  /** The issued request behind a nonce, checked against the call; the document must still be live. */
  async function issued(tenantId: string, documentId: string, userId: string, chain: SigningChain, address: string, nonce: string): Promise<SigningNonceRow> {
    const document = await repo.findTenantDocument(tenantId, documentId);
    if (!document) throw DocumentErrors.notFound();
    const row = await repo.findNonce(tenantId, nonce);
    if (!row || row.userId !== userId) throw DocumentErrors.nonceUnknown();
    if (row.documentId !== documentId) throw DocumentErrors.nonceMismatch('document');
    if (row.chain !== chain) throw DocumentErrors.nonceMismatch('chain');
    if (row.address !== address) throw DocumentErrors.nonceMismatch('address');
    if (row.consumedAt) throw DocumentErrors.nonceUsed();
    if (row.expiresAt <= clock.now()) throw DocumentErrors.nonceExpired();
    if (document.blobKey !== row.documentSha256) throw DocumentErrors.nonceMismatch('document content');
    if (await repo.findSignature(tenantId, { documentId, userId, chain, address })) throw DocumentErrors.alreadySigned();
    return row;
  }

  async function record(
    tenantId: string,
    facts: SigningNonceRow,
    signed: { scheme: string; payload: Record<string, unknown>; signature: string; publicKey: string | null; signerKind: string },
    actor: Actor,
  ): Promise<SignedDocumentDto> {
    const now = clock.now();
    try {
      return await tx(async (db) => {
        if (!(await repo.consumeNonce(tenantId, facts.nonce, now, db))) throw DocumentErrors.nonceUsed();
        const row = await repo.insertSigned(
          tenantId,
          {
            id: newId(),
            documentId: facts.documentId,
            userId: facts.userId,
            chain: facts.chain,
            address: facts.address,
            documentSha256: facts.documentSha256,
            nonce: facts.nonce,
            signedAt: now,
            ...signed,
          },
          db,
        );
        await audit.record(db, tenantId, {
          type: 'document.signed',
          ...auditActor(actor),
          subjectUserId: facts.userId,
          details: { documentId: facts.documentId, signedDocumentId: row.id, chain: facts.chain, address: facts.address, scheme: signed.scheme },
        });
        await appendEvent(db, tenantId, 'document.signed', {
          signedDocumentId: row.id,
          documentId: facts.documentId,
          userId: facts.userId,
          chainType: facts.chain,
          address: facts.address,
          documentSha256: facts.documentSha256,
          scheme: signed.scheme,
        });
        return toSignedDto(row);
      });
    } catch (error) {
      if (isUniqueViolation(error, 'signed_documents_signer_unique')) throw DocumentErrors.alreadySigned();
      throw error;
    }
  }

  return {
    /** Issues the message to sign: a new single-use nonce, valid SIGNING_TTL_MS. */
    async message(tenantId: string, userId: string, documentId: string, chainType: string, rawAddress: string): Promise<SigningMessageDto> {
      if (!(SIGNING_CHAINS as readonly string[]).includes(chainType)) throw DocumentErrors.chainInvalid();
      const chain = chainType as SigningChain;
      if (!isValidAddress(chain, rawAddress)) throw DocumentErrors.addressInvalid(chain);
      const address = normalizeAddress(chain, rawAddress);
      const document = await repo.findTenantDocument(tenantId, documentId);
      if (!document) throw DocumentErrors.notFound();
      if (await repo.findSignature(tenantId, { documentId, userId, chain, address })) throw DocumentErrors.alreadySigned();
      await enforceRateLimit(deps.limiter, `document-sign:${tenantId}:${userId}`, MESSAGES_PER_WINDOW, SIGNING_TTL_MS);
      const issuedAt = clock.now();
      const facts: SigningNonceRow = {
        tenantId,
        nonce: randomBytes(16).toString('hex'),
        documentId,
        userId,
        chain,
        address,
        documentSha256: document.blobKey,
        issuedAt,
        expiresAt: new Date(issuedAt.getTime() + SIGNING_TTL_MS),
        consumedAt: null,
      };
      await repo.deleteOldNonces(tenantId, userId, new Date(issuedAt.getTime() - EXPIRED_NONCE_KEPT_MS));
      const { tenantId: _t, ...row } = facts;
      await repo.insertNonce(tenantId, row);
      return describe(facts);
    },

    async signEvm(tenantId: string, userId: string, documentId: string, input: EvmSignInput, actor: Actor): Promise<SignedDocumentDto> {
      const address = parseEvmAddress(input.address);
      if (!address) throw DocumentErrors.addressInvalid('evm');
      const facts = await issued(tenantId, documentId, userId, 'evm', address, input.nonce);
      const signature = input.signature as Hex;
      const bytes = hexToBytes(signature);
      if (bytes.length === 65) {
        const v = bytes[64]!;
        const s = BigInt('0x' + signature.slice(2 + 64, 2 + 128));
        if (![0, 1, 27, 28].includes(v) || s > SECP256K1_HALF_N) throw DocumentErrors.signatureInvalid();
      }
      const scheme = input.scheme ?? 'eip712';
      const typedData = typedDataFor(facts, chainId);
      const text = canonicalMessage(facts);
      let chain: EvmChainPort;
      try {
        chain = await deps.evmChain();
      } catch {
        throw DocumentErrors.chainUnavailable();
      }
      let verified: boolean;
      let signerKind = 'eoa';
      try {
        verified =
          scheme === 'eip712'
            ? await chain.publicClient.verifyTypedData({ address, signature, ...typedData })
            : await chain.publicClient.verifyMessage({ address, message: text, signature });
        if (verified) {
          const code = await chain.publicClient.getCode({ address });
          signerKind = code && code !== '0x' ? 'contract' : signature.toLowerCase().endsWith(ERC6492_SUFFIX) ? 'counterfactual' : 'eoa';
        }
      } catch (error) {
        if (isChainFailure(error)) throw DocumentErrors.chainUnavailable();
        throw DocumentErrors.signatureInvalid();
      }
      if (!verified) throw DocumentErrors.signatureInvalid();
      const payload = scheme === 'eip712' ? { typedData } : { message: text, messageHex: messageHex(text) };
      return record(tenantId, facts, { scheme, payload, signature: input.signature, publicKey: null, signerKind }, actor);
    },

    async signXrpl(tenantId: string, userId: string, documentId: string, input: XrplSignInput, actor: Actor): Promise<SignedDocumentDto> {
      if (!isValidAddress('xrpl', input.address)) throw DocumentErrors.addressInvalid('xrpl');
      const facts = await issued(tenantId, documentId, userId, 'xrpl', input.address, input.nonce);
      const message = canonicalMessage(facts);
      const signature = input.signature.replace(/^0x/i, '').toUpperCase();
      const publicKey = input.publicKey.toUpperCase();
      let result = await verifyXrplMessage({ address: facts.address, message, signature, publicKey });
      if (!result.valid) {
        // Not the master key: it may be the account's regular key, as the ledger says.
        const info = await deps.xrplLedger.accountInfo(facts.address).catch(() => null);
        if (info?.regularKey) result = await verifyXrplMessage({ address: facts.address, message, signature, publicKey, regularKey: info.regularKey });
      }
      if (!result.valid) throw DocumentErrors.signatureInvalid();
      return record(tenantId, facts, { scheme: 'xrpl-message', payload: { message, messageHex: messageHex(message) }, signature, publicKey, signerKind: result.keyKind! }, actor);
    },

    async list(ctx: CallContext, filters: { userId?: string; documentId?: string }, page: PageParams): Promise<Page<SignedDocumentDto>> {
      const { tenantId } = ctx;
      let userId = filters.userId;
      if (!ctx.privileged) {
        // The one exception to the own-record rule's 404, kept as the spec states it: GET
        // /signed-documents is "200 list for a user", the caller's list; a userId filter naming
        // another user narrows it to nothing (docs/decisions.md, "One call context").
        if (userId !== undefined && userId !== ctx.userId) return { total: 0, data: [] };
        userId = ctx.userId;
      }
      const { total, rows } = await repo.listSigned(tenantId, { userId, documentId: filters.documentId }, page);
      return { total, data: rows.map(toSignedDto) };
    },

    async get(ctx: CallContext, id: string): Promise<SignedDocumentDto> {
      const { tenantId } = ctx;
      return toSignedDto(ownedBy(ctx, await repo.findSigned(tenantId, id), DocumentErrors.signedNotFound));
    },
  };
}

export type SigningService = ReturnType<typeof createSigningService>;
