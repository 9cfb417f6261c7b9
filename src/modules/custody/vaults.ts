import type { CallContext } from '../../platform/http/context.js';
import { auditActor } from '../../platform/audit/actor.js';
import { newId, type Clock } from '../../platform/clock.js';
import type { RunInTx } from '../../platform/db/tx.js';
import { appendEventStatement } from '../../platform/events/outbox.js';
import { writeTogether } from '../../platform/db/write-together.js';
import type { AuditService } from '../audit/service.js';
import { ownedBy } from '../users/acting-for.js';
import type { UsersService } from '../users/service.js';
import type { WalletsService } from '../wallets/service.js';
import type { WalletRow } from '../wallets/table.js';
import { notFoundAs } from '../../platform/providers/errors.js';
import { CustodyErrors } from './errors.js';
import { CUSTODY_A, type CustodyAProvider } from './provider.js';
import type { CustodyRepo } from './repo.js';
import type { VaultDto } from './schemas.js';
import type { CustodyVaultRow } from './table.js';


export function createVaultsService(deps: {
  repo: CustodyRepo;
  tx: RunInTx;
  clock: Clock;
  wallets: WalletsService;
  users: UsersService;
  audit: AuditService;
  provider: CustodyAProvider;
}) {
  const { repo, tx, clock, wallets, users, audit, provider } = deps;

  async function toDto(tenantId: string, vault: CustodyVaultRow): Promise<VaultDto> {
    const rows = (await Promise.all(vault.walletIds.map((id) => wallets.findById(tenantId, id)))).filter((w): w is WalletRow => Boolean(w));
    const evm = rows.find((w) => w.chain === 'evm');
    return {
      id: vault.id,
      userId: vault.userId,
      provider: vault.provider,
      name: vault.name,
      address: evm?.address ?? '',
      wallets: rows.map((w) => wallets.toDto(w)),
      createdAt: vault.createdAt.toISOString(),
    };
  }

  /** A vault the caller may act on; another user's (for a user) or another tenant's is 404. */
  async function visibleVault(ctx: CallContext, vaultId: string): Promise<CustodyVaultRow> {
    const { tenantId } = ctx;
    return ownedBy(ctx, await repo.findVault(tenantId, vaultId), CustodyErrors.vaultNotFound);
  }

  return {
    visibleVault,
    /**
     * Opens a vault at custody-a with an EVM wallet (and an XRPL wallet when asked), and
     * registers the wallets (kind `evm-vault`, and `custody-a` for XRPL) in the registry.
     */
    async create(ctx: CallContext, input: { userId?: string; name?: string; xrplWallet?: boolean }): Promise<VaultDto> {
      const { tenantId } = ctx;
      // The own-record rule: a user naming another user is 404 USER_NOT_FOUND (it was 403 here).
      const userId = await users.actingFor(ctx, input.userId, CustodyErrors.userIdRequired);
      const name = input.name ?? 'vault';
      const client = await provider.client(tenantId);
      const vault = await notFoundAs(client.createVault({ name }), CustodyErrors.vaultNotFound);
      const opened = [await notFoundAs(client.createWallet(vault.id, { blockchain: 'ETHEREUM', name: `${name} EVM` }), CustodyErrors.vaultNotFound)];
      if (input.xrplWallet) opened.push(await notFoundAs(client.createWallet(vault.id, { blockchain: 'XRPL', name: `${name} XRPL` }), CustodyErrors.vaultNotFound));

      const id = newId();
      const row = await tx(async (db) => {
        const walletIds: string[] = [];
        for (const w of opened) {
          const location = w.blockchain === 'ETHEREUM' ? { chain: 'evm' as const, chainId: Number(w.network) } : { chain: 'xrpl' as const, network: w.network };
          const { wallet } = await wallets.register(
            tenantId,
            userId,
            { ...location, kind: w.blockchain === 'ETHEREUM' ? 'evm-vault' : 'custody-a', address: w.address, vaultId: id, provider: CUSTODY_A, providerRef: w.id, details: { providerVaultId: vault.id, name: w.name } },
            { actor: ctx.actor, db },
          );
          walletIds.push(wallet.id);
        }
        const vaultRow = { id, userId, provider: CUSTODY_A, providerVaultId: vault.id, name, walletIds, createdAt: clock.now() };
        await repo.insertVault(tenantId, vaultRow, db);
        const facts = { vaultId: id, userId, provider: CUSTODY_A, walletIds };
        await writeTogether(db, [appendEventStatement(db, tenantId, 'custody.vault_created', { ...facts, actor: ctx.actor }), audit.statement(tenantId, { type: 'custody.vault_created', ...auditActor(ctx.actor), subjectUserId: userId, details: facts })]);
        return { ...vaultRow, tenantId };
      });
      return toDto(tenantId, row);
    },

    /** A vault by id or by one of its wallets' addresses. */
    async find(ctx: CallContext, query: { id?: string; address?: string }, evmChainId: number): Promise<VaultDto> {
      const { tenantId } = ctx;
      if ((query.id === undefined) === (query.address === undefined)) throw CustodyErrors.lookupInvalid();
      let vaultId = query.id;
      if (query.address !== undefined) {
        const address = query.address;
        const wallet = address.startsWith('0x')
          ? await wallets.findByAddress(tenantId, { chain: 'evm', chainId: evmChainId }, address)
          : await findXrpl(tenantId, address);
        if (!wallet?.vaultId || wallet.provider !== CUSTODY_A) throw CustodyErrors.vaultNotFound();
        vaultId = wallet.vaultId;
      }
      return toDto(tenantId, await visibleVault(ctx, vaultId!));
    },
  };

  async function findXrpl(tenantId: string, address: string): Promise<WalletRow | undefined> {
    for (const network of ['local', 'testnet', 'devnet', 'mainnet']) {
      const found = await wallets.findByAddress(tenantId, { chain: 'xrpl', network }, address);
      if (found) return found;
    }
    return undefined;
  }
}

export type VaultsService = ReturnType<typeof createVaultsService>;
