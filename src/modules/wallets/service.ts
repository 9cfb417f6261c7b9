import { auditActor } from '../../platform/audit/actor.js';
import { countedPage } from '../../platform/db/counted-page.js';
import type { Actor } from '../../platform/audit/actor.js';
import type { Clock } from '../../platform/clock.js';
import { newId } from '../../platform/clock.js';
import { isValidAddress, normalizeAddress } from '../../platform/crypto/wallet-signatures.js';
import type { SecretBox } from '../../platform/crypto/secrets.js';
import type { DbOrTx } from '../../platform/db/client.js';
import { isTransaction, type RunInTx } from '../../platform/db/tx.js';
import { appendEventStatement } from '../../platform/events/outbox.js';
import { paginate, type Page, type PageParams } from '../../platform/http/pagination.js';
import type { AuditService } from '../audit/service.js';
import type { UsersService, WalletAddressField } from '../users/service.js';
import { WalletErrors } from './errors.js';
import type { ListedWallet, WalletFilters, WalletsRepo } from './repo.js';
import type { WalletDto } from './schemas.js';
import type { WalletChain, WalletKind, WalletRow } from './table.js';

/** Where a wallet lives: an EVM chain by its id, or an XRPL network by its name. */
export type WalletLocation = { chain: 'evm'; chainId: number } | { chain: 'xrpl'; network: string };

/** What a wallet-creating route hands the registry. */
export type RegisterWalletInput = WalletLocation & {
  kind: WalletKind;
  address: string;
  vaultId?: string;
  /** Custody provider holding the key, and its reference for this wallet. */
  provider?: string;
  providerRef?: string;
  /** A private key the service is to hold: sealed here by the SecretBox, never answered. */
  privateKey?: string;
  /** Secret-free, kind-specific facts (answered as `details`). */
  details?: Record<string, unknown>;
};

export interface RegisterOptions {
  /** Who registers (audit row and event); the system when absent. */
  actor?: Actor;
  /** Run inside the caller's transaction (e.g. with the SIWE nonce it consumes); anything but a transaction gets one of its own. */
  db?: DbOrTx;
}

export interface RegisterResult {
  wallet: WalletRow;
  /** False when the same user registered the same address of the same kind before (idempotent). */
  created: boolean;
}

/**
 * An EVM address in one case (any checksum-free form) or in its EIP-55 form; a mixed-case
 * address whose checksum is wrong is a typo, not an address. XRPL: a classic address.
 */
export function isWalletAddress(chain: WalletChain, address: string): boolean {
  if (chain === 'xrpl') return isValidAddress('xrpl', address);
  return isValidAddress('evm', address);
}

const XRPL_NETWORK_RE = /^[a-z0-9][a-z0-9-]{0,31}$/;

export function networkOf(location: WalletLocation): string {
  if (location.chain === 'evm') {
    if (!Number.isSafeInteger(location.chainId) || location.chainId < 1) throw WalletErrors.networkInvalid();
    return String(location.chainId);
  }
  if (!XRPL_NETWORK_RE.test(location.network)) throw WalletErrors.networkInvalid();
  return location.network;
}

/** The compared form: EVM addresses case-insensitively, XRPL ones exactly (base58 is case-sensitive). */
export function addressKeyOf(chain: WalletChain, address: string): string {
  return chain === 'evm' ? address.toLowerCase() : address;
}

export function toWalletDto(row: ListedWallet): WalletDto {
  return {
    walletId: row.id,
    userId: row.userId,
    kind: row.kind,
    chain: row.chain,
    network: row.network,
    chainId: row.chain === 'evm' ? Number(row.network) : null,
    address: row.address,
    vaultId: row.vaultId,
    details: row.details,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}


/**
 * The wallet registry, shared by every wallet kind: one owner per address per tenant, chain
 * and network. Each registration writes `wallet.registered` to the outbox, an audit row, and
 * the user's profile field, in one transaction.
 */
export function createWalletsService(deps: {
  repo: WalletsRepo;
  tx: RunInTx;
  clock: Clock;
  secrets: SecretBox;
  users: UsersService;
  audit: AuditService;
  /** The chain id of the primary EVM chain: its EOAs are the profile's `evmEoa`, other EVM chains `evmCompatible`. */
  primaryEvmChainId: number;
}) {
  const { repo, tx, clock, secrets, users, audit, primaryEvmChainId } = deps;

  async function pageForUser(tenantId: string, userId: string, filters: WalletFilters, page: PageParams): Promise<Page<WalletDto> & { userFound?: boolean }> {
    if (!page.afterId && !page.beforeId) {
      const { rows, userFound } = await repo.pageByUser(tenantId, userId, filters, page);
      return { ...(await countedPage(rows, page, () => repo.countByUser(tenantId, userId, filters), toWalletDto)), userFound };
    }
    return paginate(
      () => repo.countByUser(tenantId, userId, filters),
      () => repo.listByUser(tenantId, userId, filters, page),
      toWalletDto,
    );
  }

  function profileFieldOf(row: WalletRow): WalletAddressField | undefined {
    if (row.chain === 'evm') {
      if (row.network !== String(primaryEvmChainId)) return 'evmCompatibleAddress';
      return row.kind === 'evm-eoa' ? 'evmEoa' : undefined;
    }
    if (row.kind === 'xrpl-secure') return 'xrplSecureAccountAddress';
    // The investor account holds the user's XRPL assets; the signer and cold wallets are its keys.
    return row.kind === 'xrpl-investor' ? 'xrplAddress' : undefined;
  }

  const keyContext = (tenantId: string, walletId: string) => `wallet:${tenantId}:${walletId}`;

  async function registerIn(db: DbOrTx, tenantId: string, userId: string, input: RegisterWalletInput, actor: Actor): Promise<RegisterResult> {
    const network = networkOf(input);
    if (!isWalletAddress(input.chain, input.address)) throw WalletErrors.addressInvalid(input.chain);
    const address = normalizeAddress(input.chain, input.address);
    const addressKey = addressKeyOf(input.chain, address);

    // The user's existence is read with the event and audit writes below, in their statement:
    // a registration for a user that does not exist fails there and its transaction takes the
    // wallet's insert with it.
    const id = newId();
    const now = clock.now();
    const created = await repo.insertIfAbsent(
      tenantId,
      {
        id,
        userId,
        kind: input.kind,
        chain: input.chain,
        network,
        address,
        addressKey,
        vaultId: input.vaultId ?? null,
        provider: input.provider ?? null,
        providerRef: input.providerRef ?? null,
        sealedKey: input.privateKey === undefined ? null : secrets.encrypt(input.privateKey, keyContext(tenantId, id)),
        details: input.details ?? {},
        createdAt: now,
        updatedAt: now,
      },
      db,
    );
    if (!created) {
      // Registered before (or by a concurrent request that committed first): same owner and kind is a repeat.
      const existing = await repo.findByAddress(tenantId, input.chain, network, addressKey, db);
      if (existing?.userId === userId) {
        if (existing.kind !== input.kind) throw WalletErrors.kindConflict(existing.kind);
        return { wallet: existing, created: false };
      }
      // Another user's address (or one whose registration rolled back meanwhile: the caller may
      // retry). A user that does not exist is told so first.
      if (!(await users.findRow(tenantId, userId, db))) throw WalletErrors.userNotFound();
      throw WalletErrors.addressTaken();
    }

    const field = profileFieldOf(created);
    const facts = { walletId: id, userId, kind: created.kind, chain: created.chain, network, address, vaultId: created.vaultId };
    // The event and its audit row commit in one statement, with the link to the user's profile
    // field when the wallet's kind has one, and the read of the user.
    const writes = [
      appendEventStatement(db, tenantId, 'wallet.registered', { ...facts, actor }),
      audit.statement(tenantId, { type: 'wallet.registered', ...auditActor(actor), subjectUserId: userId, details: facts }),
    ];
    if (!(await users.writeForUser(tenantId, userId, db, writes, field && { field, address }))) throw WalletErrors.userNotFound();
    return { wallet: created, created: true };
  }

  return {
    /**
     * Registers a wallet for a user. The same user registering the same address and kind again
     * gets the existing wallet (`created: false`); another user, or another kind, is 409.
     * Pass `options.db` to join the caller's transaction.
     */
    async register(tenantId: string, userId: string, input: RegisterWalletInput, options: RegisterOptions = {}): Promise<RegisterResult> {
      const actor = options.actor ?? { type: 'system', id: null };
      // Always in a transaction: a refusal after the insert (no such user) must take it back.
      return options.db && isTransaction(options.db) ? registerIn(options.db, tenantId, userId, input, actor) : tx((db) => registerIn(db, tenantId, userId, input, actor));
    },

    async findById(tenantId: string, walletId: string, db?: DbOrTx): Promise<WalletRow | undefined> {
      return repo.findById(tenantId, walletId, db);
    },

    /**
     * Merges `changes` into the wallet's details (e.g. a custody wallet's name and description)
     * under the row's lock, so two renames at once each keep the other's fields. Pass `db` to
     * join the caller's transaction.
     */
    async updateDetails(tenantId: string, walletId: string, changes: Record<string, unknown>, db?: DbOrTx): Promise<WalletRow> {
      const run = async (t: DbOrTx) => {
        const row = await repo.findById(tenantId, walletId, t, true);
        if (!row) throw WalletErrors.notFound();
        return (await repo.updateDetails(tenantId, walletId, { ...row.details, ...changes }, clock.now(), t))!;
      };
      return db ? run(db) : tx(run);
    },

    /** Looks an address up in any case (EVM) on one chain and network. */
    async findByAddress(tenantId: string, location: WalletLocation, address: string, db?: DbOrTx): Promise<WalletRow | undefined> {
      if (!isWalletAddress(location.chain, address)) return undefined;
      return repo.findByAddress(tenantId, location.chain, networkOf(location), addressKeyOf(location.chain, address), db);
    },

    /** The user's oldest wallet of one kind or chain. Pass `db` to join the caller's transaction (under its lock). */
    async firstOfUser(tenantId: string, userId: string, filters: WalletFilters, db?: DbOrTx): Promise<WalletRow | undefined> {
      const [first] = await repo.listByUser(tenantId, userId, filters, { limit: 1, offset: 0 }, db);
      return first;
    },

    /** A user's wallets, oldest first, optionally of one kind or chain. */
    async listByUser(tenantId: string, userId: string, filters: WalletFilters, page: PageParams): Promise<Page<WalletDto>> {
      const { total, data } = await pageForUser(tenantId, userId, filters, page);
      return { total, data };
    },

    /** listByUser for users.pageActingFor: an offset page also says whether the user exists, read in the page's own statement. */
    pageForUser,

    /**
     * Runs `use` with the wallet's private key (for signing inside the service). The key is
     * opened only for the call; it is never answered or logged. 404 for a wallet without one.
     */
    async withPrivateKey<T>(tenantId: string, walletId: string, use: (privateKey: string) => Promise<T>): Promise<T> {
      const row = await repo.findById(tenantId, walletId);
      if (!row?.sealedKey) throw WalletErrors.notFound();
      return use(await secrets.decrypt(row.sealedKey, keyContext(tenantId, walletId)));
    },

    toDto: toWalletDto,
  };
}

export type WalletsService = ReturnType<typeof createWalletsService>;
