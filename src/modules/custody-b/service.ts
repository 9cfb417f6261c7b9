import { auditActor } from '../../platform/audit/actor.js';
import type { AuditType } from '../../platform/audit/types.js';
import { createHash } from 'node:crypto';
import { hashTypedData, parseTransaction, toHex, type Hex, type TypedDataDefinition } from 'viem';
import { decode, isValidClassicAddress } from 'xrpl';
import type { Actor } from '../../platform/audit/actor.js';
import type { Clock } from '../../platform/clock.js';
import type { RunInTx } from '../../platform/db/tx.js';
import { appendEvent } from '../../platform/events/outbox.js';
import type { SecretBox } from '../../platform/crypto/secrets.js';
import { canonicalJson } from '../../platform/idempotency/key.js';
import type { ProviderSettings } from '../../platform/provider-settings/settings.js';
import { beforeEffects } from '../../platform/idempotency/before-effects.js';
import { CUSTODY_B_PATHS as P, type CustodyBConnection, type CustodyBPort, type UserActionChallenge, type UserActionRequest } from '../../providers/custody-b/port.js';
import { FaucetErrors } from '../../sandboxes/faucet.js';
import type { CustodyBSandbox } from '../../sandboxes/custody-b/plugin.js';
import type { AuditService } from '../audit/service.js';
import type { UsersService } from '../users/service.js';
import type { WalletLocation, WalletsService } from '../wallets/service.js';
import { CustodyBErrors, viaProvider } from './errors.js';
import type { CustodyBRepo } from './repo.js';
import type { RegisterInput, SignedChallengeInput, TypedDataInput } from './schemas.js';

export const CUSTODY_KIND = 'custody';
export const CUSTODY_B = 'custody-b';
const CHALLENGE_TTL_MS = 5 * 60_000;
const REGISTRATION_TTL_MS = 15 * 60_000;
const DEFAULT_NETWORK = 'EthereumSepolia';

/** The provider's EVM networks and their chain ids (a configured provider's wallets live there). */
export const NETWORK_CHAIN_IDS: Record<string, number> = {
  Ethereum: 1,
  EthereumSepolia: 11155111,
  EthereumHolesky: 17000,
  Polygon: 137,
  PolygonAmoy: 80002,
  Base: 8453,
  BaseSepolia: 84532,
  ArbitrumOne: 42161,
  ArbitrumSepolia: 421614,
  Optimism: 10,
  OptimismSepolia: 11155420,
};

/** The provider's XRP Ledger networks and the XRPL network names wallets are registered under. */
export const XRPL_NETWORK_NAMES: Record<string, string> = { XrpLedger: 'mainnet', XrpLedgerTestnet: 'testnet' };

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const bodyHash = (body: unknown) => sha256(canonicalJson(body));

export interface Caller {
  tenantId: string;
  userId: string;
  actor: Actor;
}

export function createCustodyBService(deps: {
  repo: CustodyBRepo;
  /** Runs a broadcast's event and audit row in one transaction. */
  tx: RunInTx;
  clock: Clock;
  secrets: SecretBox;
  port: CustodyBPort;
  sandbox: CustodyBSandbox;
  sandboxes: boolean;
  providerSettings: ProviderSettings;
  users: UsersService;
  wallets: WalletsService;
  audit: AuditService;
  /** The chain id of the local/configured EVM chain: where sandbox wallets live. */
  localChainId: number;
  /** The network name of the service's XRPL ledger (`local` for the stand-in): where sandbox XRPL wallets live. */
  localXrplNetwork: () => Promise<string>;
}) {
  const { repo, clock, secrets, port, sandbox, wallets } = deps;
  /** An audit row for the caller's act at the provider (secret-free facts). */
  const record = (caller: Caller, type: AuditType, details: Record<string, unknown>) =>
    deps.audit.record(undefined, caller.tenantId, {
      type,
      ...auditActor(caller.actor),
      subjectUserId: caller.userId,
      details,
    });

  /** One custody-b wallet per user and network: a second is 409. */
  async function noWalletOn(caller: Caller, networkName: string): Promise<void> {
    const page = await wallets.listByUser(caller.tenantId, caller.userId, { kind: 'custody-b' }, { limit: 100, offset: 0 });
    if (page.data.some((w) => w.details.network === networkName)) throw CustodyBErrors.walletExists(networkName);
  }

  const sealContext = (tenantId: string, userId: string) => `custody-b:${tenantId}:${userId}`;

  /** The tenant's connection: configured provider, else the sandbox (when sandboxes are served). */
  async function connect(tenantId: string): Promise<{ conn: CustodyBConnection; sandboxed: boolean; defaultNetwork: string }> {
    const config = await deps.providerSettings.get(tenantId, CUSTODY_KIND, CUSTODY_B);
    const defaultNetwork = config.settings.network ?? DEFAULT_NETWORK;
    if (config.baseUrl === null) {
      if (!deps.sandboxes) throw CustodyBErrors.notConfigured();
      return { conn: await sandbox.connection(tenantId), sandboxed: true, defaultNetwork };
    }
    const { appId, serviceCredId } = config.settings;
    const { serviceToken, servicePrivateKey } = config.secrets;
    if (!appId || !serviceCredId || !serviceToken || !servicePrivateKey) throw CustodyBErrors.notConfigured();
    return { conn: { baseUrl: config.baseUrl, appId, serviceCredId, serviceToken, servicePrivateKeyPem: servicePrivateKey }, sandboxed: false, defaultNetwork };
  }

  async function registered(caller: Caller) {
    const row = await repo.findUser(caller.tenantId, caller.userId);
    if (row?.status !== 'registered') throw CustodyBErrors.notRegistered();
    return row;
  }

  /** The caller's provider token (delegated login by the service account). */
  async function userToken(conn: CustodyBConnection, username: string): Promise<string> {
    return (await viaProvider(() => port.delegatedLogin(conn, username), 'service')).token;
  }

  /** Issues a user-action challenge for one provider request and keeps its binding. */
  async function challengeFor(caller: Caller, purpose: string, request: UserActionRequest) {
    const user = await registered(caller);
    const { conn } = await connect(caller.tenantId);
    const token = await userToken(conn, user.username);
    const challenge: UserActionChallenge = await viaProvider(() => port.userActionInit(conn, token, request));
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
  async function userAction(caller: Caller, request: UserActionRequest, signed: SignedChallengeInput) {
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
    const { conn, sandboxed } = await connect(caller.tenantId);
    const token = await userToken(conn, user.username);
    const { userAction: action } = await viaProvider(() => port.userActionSign(conn, token, signed as Parameters<CustodyBPort['userActionSign']>[2]));
    return { conn, token, action, sandboxed };
  }

  /** The caller's custody-b wallet with this address (EVM or XRPL, on the chain its network maps to). */
  async function ownWallet(caller: Caller, address: string) {
    const { sandboxed } = await connect(caller.tenantId);
    const locations: WalletLocation[] = isValidClassicAddress(address)
      ? (sandboxed ? [await deps.localXrplNetwork()] : [...new Set(Object.values(XRPL_NETWORK_NAMES))]).map((network) => ({ chain: 'xrpl', network }))
      : (sandboxed ? [deps.localChainId] : [...new Set(Object.values(NETWORK_CHAIN_IDS))]).map((chainId) => ({ chain: 'evm', chainId }));
    for (const location of locations) {
      const row = await wallets.findByAddress(caller.tenantId, location, address);
      if (row && row.kind === 'custody-b' && row.userId === caller.userId && row.providerRef) return row;
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

  async function network(tenantId: string, requested: string | undefined): Promise<string> {
    const { defaultNetwork } = await connect(tenantId);
    const name = requested ?? defaultNetwork;
    if (NETWORK_CHAIN_IDS[name] === undefined && XRPL_NETWORK_NAMES[name] === undefined) throw CustodyBErrors.unknownNetwork(name);
    return name;
  }

  return {
    /** The caller's custody-b wallet at the sandbox (the sandbox faucet's check); a configured provider is 409. */
    async sandboxWallet(caller: Caller, address: string): Promise<{ providerRef: string }> {
      if (!(await connect(caller.tenantId)).sandboxed) throw FaucetErrors.notSandbox('custody-b');
      const row = await ownWallet(caller, address);
      return { providerRef: row.providerRef! };
    },
    async authToken(caller: Caller) {
      const user = await registered(caller);
      const { conn } = await connect(caller.tenantId);
      return { token: await userToken(conn, user.username) };
    },

    async registrationChallenge(caller: Caller) {
      const existing = await repo.findUser(caller.tenantId, caller.userId);
      if (existing?.status === 'registered') throw CustodyBErrors.alreadyRegistered();
      const profile = await deps.users.findRow(caller.tenantId, caller.userId);
      if (!profile) throw CustodyBErrors.notRegistered();
      const { conn } = await connect(caller.tenantId);
      const challenge = await viaProvider(() => port.delegatedRegistrationChallenge(conn, { email: profile.email, externalId: caller.userId }), 'service');
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

    async register(caller: Caller, input: RegisterInput) {
      const row = await repo.findUser(caller.tenantId, caller.userId);
      if (row?.status === 'registered') throw CustodyBErrors.alreadyRegistered();
      if (!row?.registrationTokenSealed || !row.registrationExpiresAt || row.registrationExpiresAt <= clock.now()) throw CustodyBErrors.registrationMissing();
      const temporaryToken = await secrets.decrypt(row.registrationTokenSealed, sealContext(caller.tenantId, caller.userId));
      const { conn } = await connect(caller.tenantId);
      const result = await viaProvider(() => port.register(conn, temporaryToken, input.firstFactorCredential));
      const at = clock.now();
      if (!(await repo.markRegistered(caller.tenantId, caller.userId, { providerUserId: result.user.id, credential: result.credential, at }))) throw CustodyBErrors.alreadyRegistered();
      await record(caller, 'custody_b.user_registered', { providerUserId: result.user.id, credentialKind: result.credential.kind, credentialUuid: result.credential.uuid });
      return { userId: caller.userId, providerUserId: result.user.id, username: row.username, credential: result.credential, registeredAt: at.toISOString() };
    },

    async walletChallenge(caller: Caller, requested: string | undefined) {
      const name = await network(caller.tenantId, requested);
      await registered(caller);
      await noWalletOn(caller, name);
      return challengeFor(caller, 'wallet', walletRequest(name));
    },

    async createWallet(caller: Caller, input: { network?: string; signedChallenge: SignedChallengeInput }) {
      const name = await network(caller.tenantId, input.network);
      const request = walletRequest(name);
      await registered(caller);
      await noWalletOn(caller, name);
      const { conn, token, action, sandboxed } = await userAction(caller, request, input.signedChallenge);
      const wallet = await viaProvider(() => port.createWallet(conn, token, action, { network: name }));
      const xrplName = XRPL_NETWORK_NAMES[name];
      let location: WalletLocation;
      if (xrplName !== undefined) location = { chain: 'xrpl', network: sandboxed ? await deps.localXrplNetwork() : xrplName };
      else location = { chain: 'evm', chainId: sandboxed ? deps.localChainId : NETWORK_CHAIN_IDS[name]! };
      const { wallet: row } = await wallets.register(
        caller.tenantId,
        caller.userId,
        { kind: 'custody-b', ...location, address: wallet.address, provider: CUSTODY_B, providerRef: wallet.id, details: { network: wallet.network, providerWalletId: wallet.id } },
        { actor: caller.actor },
      );
      return wallets.toDto(row);
    },

    async listWallets(caller: Caller, page: { limit: number; offset: number }) {
      return wallets.listByUser(caller.tenantId, caller.userId, { kind: 'custody-b' }, page);
    },

    async rawTransactionChallenge(caller: Caller, address: string, transaction: string) {
      const wallet = await ownWallet(caller, address);
      checkTransaction(wallet, transaction);
      return challengeFor(caller, 'raw-transaction', transactionRequest(wallet.providerRef!, transaction));
    },

    async rawTransactionComplete(caller: Caller, address: string, input: { transaction: string; signedChallenge: SignedChallengeInput }) {
      // Nothing changes until the challenge is consumed: a refusal before gives an Idempotency-Key back.
      const { wallet, request } = await beforeEffects(async () => {
        const wallet = await ownWallet(caller, address);
        checkTransaction(wallet, input.transaction);
        return { wallet, request: transactionRequest(wallet.providerRef!, input.transaction) };
      });
      const { conn, token, action } = await userAction(caller, request, input.signedChallenge);
      const sent = await viaProvider(() => port.broadcastTransaction(conn, token, action, wallet.providerRef!, request.body as { kind: 'Transaction'; transaction: string }));
      // As custody-a's transfers: a `transfer.submitted` event and audit row, in one transaction.
      const facts = { walletId: wallet.id, userId: caller.userId, address: wallet.address, network: wallet.network, transactionId: sent.id, txHash: sent.txHash ?? null, status: sent.status };
      await deps.tx(async (db) => {
        await appendEvent(db, caller.tenantId, 'transfer.submitted', { ...facts, kind: 'custody-b.broadcast', actor: caller.actor });
        await deps.audit.record(db, caller.tenantId, { type: 'transfer.submitted', ...auditActor(caller.actor), subjectUserId: caller.userId, details: { ...facts, kind: 'custody-b.broadcast' } });
      });
      return { transactionId: sent.id, walletId: wallet.id, address: wallet.address, txHash: sent.txHash ?? '', status: sent.status };
    },

    async messageChallenge(caller: Caller, input: { address: string; message: string }) {
      const wallet = await ownWallet(caller, input.address);
      return challengeFor(caller, 'message', messageRequest(wallet.providerRef!, input.message));
    },

    async signMessage(caller: Caller, input: { address: string; message: string; signedChallenge: SignedChallengeInput }) {
      const wallet = await ownWallet(caller, input.address);
      return sign(caller, wallet, messageRequest(wallet.providerRef!, input.message), input.signedChallenge);
    },

    async typedDataChallenge(caller: Caller, input: { address: string; typedData: TypedDataInput }) {
      const wallet = await ownWallet(caller, input.address);
      return challengeFor(caller, 'eip712', typedDataRequest(wallet.providerRef!, input.typedData));
    },

    async signTypedData(caller: Caller, input: { address: string; typedData: TypedDataInput; signedChallenge: SignedChallengeInput }) {
      const wallet = await ownWallet(caller, input.address);
      return sign(caller, wallet, typedDataRequest(wallet.providerRef!, input.typedData), input.signedChallenge);
    },
  };

  async function sign(caller: Caller, wallet: { id: string; address: string; providerRef: string | null }, request: UserActionRequest, signed: SignedChallengeInput) {
    const { conn, token, action } = await userAction(caller, request, signed);
    const result = await viaProvider(() => port.generateSignature(conn, token, action, wallet.providerRef!, request.body as Parameters<CustodyBPort['generateSignature']>[4]));
    const s = result.signature;
    if (!s?.encoded) throw CustodyBErrors.providerUnavailable();
    await record(caller, 'custody_b.signature', { walletId: wallet.id, address: wallet.address, signatureId: result.id, kind: (request.body as { kind: string }).kind });
    return { signatureId: result.id, walletId: wallet.id, address: wallet.address, signature: { r: s.r, s: s.s, recid: s.recid ?? 0, encoded: s.encoded } };
  }
}

export type CustodyBService = ReturnType<typeof createCustodyBService>;
