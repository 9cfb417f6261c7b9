import type { AuditType } from '../../platform/audit/types.js';
import { createHash } from 'node:crypto';
import { hashTypedData, parseTransaction, toHex, type Hex, type TypedDataDefinition } from 'viem';
import { decode, isValidClassicAddress } from 'xrpl';
import { auditActor } from '../../platform/audit/actor.js';
import type { Clock } from '../../platform/clock.js';
import type { RunInTx } from '../../platform/db/tx.js';
import { appendEventStatement } from '../../platform/events/outbox.js';
import { writeTogether } from '../../platform/db/write-together.js';
import type { SecretBox } from '../../platform/crypto/secrets.js';
import { canonicalJson } from '../../platform/idempotency/key.js';
import type { UserContext } from '../../platform/http/context.js';
import { beforeEffects } from '../../platform/idempotency/before-effects.js';
import type { Providers } from '../../platform/providers/service.js';
import { CUSTODY_B_PATHS as P, type CustodyBClient, type UserActionChallenge, type UserActionRequest } from '../../providers/custody-b/port.js';
import type { AuditService } from '../audit/service.js';
import { ownedBy } from '../users/acting-for.js';
import type { UsersService } from '../users/service.js';
import type { WalletsService } from '../wallets/service.js';
import { callerRefusalsAs, conflictAs, CustodyBErrors } from './errors.js';
import type { CustodyBRepo } from './repo.js';
import type { RegisterInput, SignedChallengeInput, TypedDataInput } from './schemas.js';

/** The kind and the provider of custody-b (src/providers/custody-b/custody-b/index.ts declares it). */
export const CUSTODY_B = 'custody-b';
const CHALLENGE_TTL_MS = 5 * 60_000;
const REGISTRATION_TTL_MS = 15 * 60_000;

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const bodyHash = (body: unknown) => sha256(canonicalJson(body));

/**
 * custody-b's wallets sign with the user's own credential: every caller, an admin too, acts
 * for itself only (the own-record rule with no privilege; another user's wallet is 404).
 */
const self = (ctx: UserContext) => ({ userId: ctx.userId, privileged: false });

export function createCustodyBService(deps: {
  repo: CustodyBRepo;
  /** Runs a broadcast's event and audit row in one transaction. */
  tx: RunInTx;
  clock: Clock;
  secrets: SecretBox;
  /** The platform's providers: the tenant's custody-b (configured, else its sandbox). */
  providers: Pick<Providers, 'port'>;
  users: UsersService;
  wallets: WalletsService;
  audit: AuditService;
}) {
  const { repo, clock, secrets, wallets } = deps;
  /** The tenant's custody-b: configured, else the sandbox while sandboxes are on, else 503 PROVIDER_NOT_CONFIGURED. */
  const portOf = (tenantId: string): Promise<CustodyBClient> => deps.providers.port(tenantId, CUSTODY_B);
  /** An audit row for the caller's act at the provider (secret-free facts). */
  const record = (caller: UserContext, type: AuditType, details: Record<string, unknown>) =>
    deps.audit.record(undefined, caller.tenantId, {
      type,
      ...auditActor(caller.actor),
      subjectUserId: caller.userId,
      details,
    });

  /** One custody-b wallet per user and network: a second is 409. */
  async function noWalletOn(caller: UserContext, networkName: string): Promise<void> {
    const page = await wallets.listByUser(caller.tenantId, caller.userId, { kind: 'custody-b' }, { limit: 100, offset: 0 });
    if (page.data.some((w) => w.details.network === networkName)) throw CustodyBErrors.walletExists(networkName);
  }

  const sealContext = (tenantId: string, userId: string) => `custody-b:${tenantId}:${userId}`;

  async function registered(caller: UserContext) {
    const row = await repo.findUser(caller.tenantId, caller.userId);
    if (row?.status !== 'registered') throw CustodyBErrors.notRegistered();
    return row;
  }

  /** The caller's provider token (delegated login by the service account). */
  async function userToken(port: CustodyBClient, username: string): Promise<string> {
    return (await conflictAs(port.delegatedLogin(username))).token;
  }

  /** Issues a user-action challenge for one provider request and keeps its binding. */
  async function challengeFor(caller: UserContext, purpose: string, request: UserActionRequest) {
    const user = await registered(caller);
    const port = await portOf(caller.tenantId);
    const token = await userToken(port, user.username);
    const challenge: UserActionChallenge = await callerRefusalsAs(port.userActionInit(token, request));
    const expiresAt = new Date(clock.now().getTime() + CHALLENGE_TTL_MS);
    await repo.insertChallenge(caller.tenantId, {
      identifierHash: sha256(challenge.challengeIdentifier),
      userId: caller.userId,
      purpose,
      method: request.method,
      path: request.path,
      bodyHash: bodyHash(request.body),
      expiresAt,
      createdAt: clock.now(),
    });
    return {
      challenge: challenge.challenge,
      challengeIdentifier: challenge.challengeIdentifier,
      allowCredentials: { key: challenge.allowCredentials.key ?? [], webauthn: challenge.allowCredentials.webauthn ?? [] },
      supportedCredentialKinds: challenge.supportedCredentialKinds,
      userVerification: challenge.userVerification,
      expiresAt: expiresAt.toISOString(),
      request,
    };
  }

  /**
   * Checks the signed challenge against the request about to be made (the caller's, unused,
   * unexpired, issued for this exact method, path and body), takes it, and exchanges the
   * signature for the provider's one-time user-action token.
   */
  async function userAction(caller: UserContext, request: UserActionRequest, signed: SignedChallengeInput) {
    const { user, hash } = await beforeEffects(async () => {
      const user = await registered(caller);
      const hash = sha256(signed.challengeIdentifier);
      const row = await repo.findChallenge(caller.tenantId, hash);
      if (!row || row.userId !== caller.userId) throw CustodyBErrors.challengeInvalid();
      if (row.consumedAt) throw CustodyBErrors.challengeUsed();
      if (row.expiresAt <= clock.now()) throw CustodyBErrors.challengeExpired();
      if (row.method !== request.method || row.path !== request.path || row.bodyHash !== bodyHash(request.body)) throw CustodyBErrors.challengeMismatch();
      return { user, hash };
    });
    if (!(await repo.consumeChallenge(caller.tenantId, hash, clock.now()))) throw CustodyBErrors.challengeUsed();
    const port = await portOf(caller.tenantId);
    const token = await userToken(port, user.username);
    const { userAction: action } = await callerRefusalsAs(port.userActionSign(token, signed as Parameters<CustodyBClient['userActionSign']>[1]));
    return { port, token, action };
  }

  /** The caller's custody-b wallet with this address (EVM or XRPL, where the tenant's provider keeps them); another's is 404. */
  async function ownWallet(caller: UserContext, address: string) {
    const port = await portOf(caller.tenantId);
    for (const location of await port.locations(isValidClassicAddress(address) ? 'xrpl' : 'evm')) {
      const row = await wallets.findByAddress(caller.tenantId, location, address);
      if (row?.kind === 'custody-b' && row.providerRef) return ownedBy(self(caller), row, CustodyBErrors.walletNotFound);
    }
    throw CustodyBErrors.walletNotFound();
  }

  const walletRequest = (network: string): UserActionRequest => ({ method: 'POST', path: P.wallets, body: { network } });
  const transactionRequest = (providerRef: string, transaction: string): UserActionRequest => ({
    method: 'POST',
    path: P.transactions(providerRef),
    body: { kind: 'Transaction', transaction },
  });
  const messageRequest = (providerRef: string, message: string): UserActionRequest => ({
    method: 'POST',
    path: P.signatures(providerRef),
    body: { kind: 'Message', message: toHex(message) },
  });

  function typedDataRequest(providerRef: string, typedData: TypedDataInput): UserActionRequest {
    const types = Object.fromEntries(Object.entries(typedData.types).filter(([name]) => name !== 'EIP712Domain'));
    if (!types[typedData.primaryType]) throw CustodyBErrors.badTypedData(`primaryType ${typedData.primaryType} is not among the types`);
    const referenced = new Set(Object.values(types).flatMap((fields) => fields.map((f) => f.type.replace(/(\[\d*\])+$/, ''))));
    const roots = Object.keys(types).filter((n) => !referenced.has(n));
    if (roots.length !== 1 || roots[0] !== typedData.primaryType) {
      throw CustodyBErrors.badTypedData('the primary type must be the one type no other type refers to (the provider derives it so)');
    }
    try {
      hashTypedData({ ...typedData, types } as unknown as TypedDataDefinition);
    } catch (error) {
      throw CustodyBErrors.badTypedData(error instanceof Error ? ((error as { shortMessage?: string }).shortMessage ?? error.message.split('\n')[0]!) : 'invalid');
    }
    return { method: 'POST', path: P.signatures(providerRef), body: { kind: 'Eip712', types, domain: typedData.domain, message: typedData.message } };
  }

  /** An unsigned serialized transaction for the wallet's chain (XRPL: of the wallet's account). */
  function checkTransaction(wallet: { chain: string; address: string }, transaction: string): void {
    const reason = (error: unknown) => (error instanceof Error ? ((error as { shortMessage?: string }).shortMessage ?? error.message.split('\n')[0]!) : 'invalid');
    if (wallet.chain === 'xrpl') {
      let tx: Record<string, unknown>;
      try {
        tx = decode(transaction.replace(/^0x/i, '')) as Record<string, unknown>;
      } catch (error) {
        throw CustodyBErrors.badTransaction('XRPL', reason(error));
      }
      if (typeof tx.TransactionType !== 'string') throw CustodyBErrors.badTransaction('XRPL', 'it has no TransactionType');
      if (tx.Account !== wallet.address) throw CustodyBErrors.badTransaction('XRPL', `its Account is not the wallet ${wallet.address}`);
      if (tx.TxnSignature !== undefined || tx.Signers !== undefined) throw CustodyBErrors.badTransaction('XRPL', 'it is signed already');
      if (tx.Sequence === undefined && tx.TicketSequence === undefined) throw CustodyBErrors.badTransaction('XRPL', 'it has no Sequence');
      if (tx.Fee === undefined) throw CustodyBErrors.badTransaction('XRPL', 'it has no Fee');
      return;
    }
    try {
      const tx = parseTransaction(transaction as Hex);
      if (tx.r !== undefined || tx.s !== undefined) throw new Error('it is signed already');
    } catch (error) {
      throw CustodyBErrors.badTransaction('EVM', reason(error));
    }
  }

  /** The network asked for (else the provider's default) and where its wallets are registered; an unknown one is 400. */
  async function network(tenantId: string, requested: string | undefined) {
    const port = await portOf(tenantId);
    const name = requested ?? port.defaultNetwork;
    const location = await port.locationOf(name);
    if (!location) throw CustodyBErrors.unknownNetwork(name);
    return { name, location };
  }

  return {
    /** The caller's custody-b wallet by address (the sandbox faucet's lookup). */
    async walletOf(caller: UserContext, address: string): Promise<{ providerRef: string }> {
      const row = await ownWallet(caller, address);
      return { providerRef: row.providerRef! };
    },
    async authToken(caller: UserContext) {
      const user = await registered(caller);
      return { token: await userToken(await portOf(caller.tenantId), user.username) };
    },

    async registrationChallenge(caller: UserContext) {
      const existing = await repo.findUser(caller.tenantId, caller.userId);
      if (existing?.status === 'registered') throw CustodyBErrors.alreadyRegistered();
      const profile = await deps.users.findRow(caller.tenantId, caller.userId);
      if (!profile) throw CustodyBErrors.notRegistered();
      const port = await portOf(caller.tenantId);
      const challenge = await conflictAs(port.delegatedRegistrationChallenge({ email: profile.email, externalId: caller.userId }));
      const now = clock.now();
      const expiresAt = new Date(now.getTime() + REGISTRATION_TTL_MS);
      await repo.upsertPending(caller.tenantId, {
        userId: caller.userId,
        providerUserId: challenge.user.id,
        username: profile.email,
        registrationTokenSealed: secrets.encrypt(challenge.temporaryAuthenticationToken, sealContext(caller.tenantId, caller.userId)),
        registrationExpiresAt: expiresAt,
        createdAt: now,
        updatedAt: now,
      });
      return {
        challenge: challenge.challenge,
        user: challenge.user,
        rp: challenge.rp,
        supportedCredentialKinds: challenge.supportedCredentialKinds,
        authenticatorSelection: challenge.authenticatorSelection,
        attestation: challenge.attestation,
        pubKeyCredParams: challenge.pubKeyCredParams,
        excludeCredentials: challenge.excludeCredentials,
        expiresAt: expiresAt.toISOString(),
      };
    },

    async register(caller: UserContext, input: RegisterInput) {
      const row = await repo.findUser(caller.tenantId, caller.userId);
      if (row?.status === 'registered') throw CustodyBErrors.alreadyRegistered();
      if (!row?.registrationTokenSealed || !row.registrationExpiresAt || row.registrationExpiresAt <= clock.now()) throw CustodyBErrors.registrationMissing();
      const temporaryToken = await secrets.decrypt(row.registrationTokenSealed, sealContext(caller.tenantId, caller.userId));
      const port = await portOf(caller.tenantId);
      const result = await callerRefusalsAs(port.register(temporaryToken, input.firstFactorCredential));
      const at = clock.now();
      if (!(await repo.markRegistered(caller.tenantId, caller.userId, { providerUserId: result.user.id, credential: result.credential, at }))) throw CustodyBErrors.alreadyRegistered();
      await record(caller, 'custody_b.user_registered', { providerUserId: result.user.id, credentialKind: result.credential.kind, credentialUuid: result.credential.uuid });
      return { userId: caller.userId, providerUserId: result.user.id, username: row.username, credential: result.credential, registeredAt: at.toISOString() };
    },

    async walletChallenge(caller: UserContext, requested: string | undefined) {
      const { name } = await network(caller.tenantId, requested);
      await registered(caller);
      await noWalletOn(caller, name);
      return challengeFor(caller, 'wallet', walletRequest(name));
    },

    async createWallet(caller: UserContext, input: { network?: string; signedChallenge: SignedChallengeInput }) {
      const { name, location } = await network(caller.tenantId, input.network);
      const request = walletRequest(name);
      await registered(caller);
      await noWalletOn(caller, name);
      const { port, token, action } = await userAction(caller, request, input.signedChallenge);
      const wallet = await callerRefusalsAs(port.createWallet(token, action, { network: name }));
      const { wallet: row } = await wallets.register(
        caller.tenantId,
        caller.userId,
        { kind: 'custody-b', ...location, address: wallet.address, provider: CUSTODY_B, providerRef: wallet.id, details: { network: wallet.network, providerWalletId: wallet.id } },
        { actor: caller.actor },
      );
      return wallets.toDto(row);
    },

    async listWallets(caller: UserContext, page: { limit: number; offset: number }) {
      return wallets.listByUser(caller.tenantId, caller.userId, { kind: 'custody-b' }, page);
    },

    async rawTransactionChallenge(caller: UserContext, address: string, transaction: string) {
      const wallet = await ownWallet(caller, address);
      checkTransaction(wallet, transaction);
      return challengeFor(caller, 'raw-transaction', transactionRequest(wallet.providerRef!, transaction));
    },

    async rawTransactionComplete(caller: UserContext, address: string, input: { transaction: string; signedChallenge: SignedChallengeInput }) {
      // Nothing changes until the challenge is consumed: a refusal before gives an Idempotency-Key back.
      const { wallet, request } = await beforeEffects(async () => {
        const wallet = await ownWallet(caller, address);
        checkTransaction(wallet, input.transaction);
        return { wallet, request: transactionRequest(wallet.providerRef!, input.transaction) };
      });
      const { port, token, action } = await userAction(caller, request, input.signedChallenge);
      const sent = await callerRefusalsAs(port.broadcastTransaction(token, action, wallet.providerRef!, request.body as { kind: 'Transaction'; transaction: string }));
      // As custody-a's transfers: a `transfer.submitted` event and audit row, in one transaction.
      const facts = { walletId: wallet.id, userId: caller.userId, address: wallet.address, network: wallet.network, transactionId: sent.id, txHash: sent.txHash ?? null, status: sent.status };
      await deps.tx(async (db) => {
        await writeTogether(db, [appendEventStatement(db, caller.tenantId, 'transfer.submitted', { ...facts, kind: 'custody-b.broadcast', actor: caller.actor }), deps.audit.statement(caller.tenantId, { type: 'transfer.submitted', ...auditActor(caller.actor), subjectUserId: caller.userId, details: { ...facts, kind: 'custody-b.broadcast' } })]);
      });
      return { transactionId: sent.id, walletId: wallet.id, address: wallet.address, txHash: sent.txHash ?? '', status: sent.status };
    },

    async messageChallenge(caller: UserContext, input: { address: string; message: string }) {
      const wallet = await ownWallet(caller, input.address);
      return challengeFor(caller, 'message', messageRequest(wallet.providerRef!, input.message));
    },

    async signMessage(caller: UserContext, input: { address: string; message: string; signedChallenge: SignedChallengeInput }) {
      const wallet = await ownWallet(caller, input.address);
      return sign(caller, wallet, messageRequest(wallet.providerRef!, input.message), input.signedChallenge);
    },

    async typedDataChallenge(caller: UserContext, input: { address: string; typedData: TypedDataInput }) {
      const wallet = await ownWallet(caller, input.address);
      return challengeFor(caller, 'eip712', typedDataRequest(wallet.providerRef!, input.typedData));
    },

    async signTypedData(caller: UserContext, input: { address: string; typedData: TypedDataInput; signedChallenge: SignedChallengeInput }) {
      const wallet = await ownWallet(caller, input.address);
      return sign(caller, wallet, typedDataRequest(wallet.providerRef!, input.typedData), input.signedChallenge);
    },
  };

  async function sign(caller: UserContext, wallet: { id: string; address: string; providerRef: string | null }, request: UserActionRequest, signed: SignedChallengeInput) {
    const { port, token, action } = await userAction(caller, request, signed);
    const result = await callerRefusalsAs(port.generateSignature(token, action, wallet.providerRef!, request.body as Parameters<CustodyBClient['generateSignature']>[3]));
    const s = result.signature;
    if (!s?.encoded) throw CustodyBErrors.signatureIncomplete();
    await record(caller, 'custody_b.signature', { walletId: wallet.id, address: wallet.address, signatureId: result.id, kind: (request.body as { kind: string }).kind });
    return { signatureId: result.id, walletId: wallet.id, address: wallet.address, signature: { r: s.r, s: s.s, recid: s.recid ?? 0, encoded: s.encoded } };
  }
}

export type CustodyBService = ReturnType<typeof createCustodyBService>;
