import { and, eq, isNotNull, isNull, sql } from 'drizzle-orm';
import { preparedQuery } from '../../platform/db/prepared.js';
import type { DbOrTx } from '../../platform/db/client.js';
import {
  custodyASandboxClients,
  custodyASandboxKeys,
  custodyASandboxTransactions,
  custodyASandboxTransfers,
  custodyASandboxVaults,
  custodyASandboxWallets,
  type SandboxTransactionRow,
  type SandboxTransferRow,
  type SandboxWalletRow,
} from './table.js';

/** The sandbox's queries; every row is reached through the client (API key) it belongs to. */
export function createSandboxStore(db: DbOrTx) {
  const first = <T>(rows: T[]) => rows[0];
  // The reads of every request and every step of a transaction, as prepared statements.
  const clientByKey = preparedQuery<Array<typeof custodyASandboxClients.$inferSelect>, { apiKey: string }>(db, 'custody_a_sandbox_client_by_key', (q) =>
    q.select().from(custodyASandboxClients).where(eq(custodyASandboxClients.apiKey, sql.placeholder('apiKey'))).limit(1),
  );
  const walletById = preparedQuery<SandboxWalletRow[], { apiKey: string; id: string }>(db, 'custody_a_sandbox_wallet_by_id', (q) =>
    q
      .select()
      .from(custodyASandboxWallets)
      .where(and(eq(custodyASandboxWallets.apiKey, sql.placeholder('apiKey')), eq(custodyASandboxWallets.id, sql.placeholder('id'))))
      .limit(1),
  );
  const transactionById = preparedQuery<SandboxTransactionRow[], { id: string }>(db, 'custody_a_sandbox_transaction_by_id', (q) =>
    q.select().from(custodyASandboxTransactions).where(eq(custodyASandboxTransactions.id, sql.placeholder('id'))).limit(1),
  );
  return {
    findClient: async (apiKey: string) => first(await clientByKey({ apiKey })),
    findClientByLabel: async (label: string) => first(await db.select().from(custodyASandboxClients).where(eq(custodyASandboxClients.label, label)).limit(1)),
    async insertClientIfAbsent(row: typeof custodyASandboxClients.$inferInsert) {
      await db.insert(custodyASandboxClients).values(row).onConflictDoNothing();
    },
    async setWebhookUrl(apiKey: string, webhookUrl: string) {
      await db.update(custodyASandboxClients).set({ webhookUrl }).where(eq(custodyASandboxClients.apiKey, apiKey));
    },
    findKey: async () => first(await db.select().from(custodyASandboxKeys).where(eq(custodyASandboxKeys.id, 'webhook')).limit(1)),
    async insertKeyIfAbsent(row: typeof custodyASandboxKeys.$inferInsert) {
      await db.insert(custodyASandboxKeys).values(row).onConflictDoNothing();
    },

    async insertVault(row: typeof custodyASandboxVaults.$inferInsert) {
      await db.insert(custodyASandboxVaults).values(row);
    },
    findVault: async (apiKey: string, id: string) =>
      first(await db.select().from(custodyASandboxVaults).where(and(eq(custodyASandboxVaults.apiKey, apiKey), eq(custodyASandboxVaults.id, id))).limit(1)),

    async insertWallet(row: SandboxWalletRow) {
      await db.insert(custodyASandboxWallets).values(row);
    },
    findWallet: async (apiKey: string, id: string) => first(await walletById({ apiKey, id })),
    async updateWallet(id: string, patch: Partial<SandboxWalletRow>) {
      await db.update(custodyASandboxWallets).set(patch).where(eq(custodyASandboxWallets.id, id));
    },

    /** Inserts unless the client used the externalId before; answers the row either way. */
    async insertTransaction(row: typeof custodyASandboxTransactions.$inferInsert): Promise<{ row: SandboxTransactionRow; created: boolean }> {
      const inserted = await db.insert(custodyASandboxTransactions).values(row).onConflictDoNothing().returning();
      if (inserted[0]) return { row: inserted[0], created: true };
      const existing = first(
        await db
          .select()
          .from(custodyASandboxTransactions)
          .where(and(eq(custodyASandboxTransactions.apiKey, row.apiKey), eq(custodyASandboxTransactions.externalId, row.externalId)))
          .limit(1),
      );
      return { row: existing!, created: false };
    },
    findTransaction: async (apiKey: string, id: string) =>
      first(await db.select().from(custodyASandboxTransactions).where(and(eq(custodyASandboxTransactions.apiKey, apiKey), eq(custodyASandboxTransactions.id, id))).limit(1)),
    /**
     * Compare-and-set: changes the row only while it is in `status` (and, when `signed` is given,
     * holds a signed transaction or not); undefined when another driver moved it first.
     */
    async moveTransaction(id: string, from: { status: string; signed?: boolean }, patch: Partial<SandboxTransactionRow>): Promise<SandboxTransactionRow | undefined> {
      const t = custodyASandboxTransactions;
      const signed = from.signed === undefined ? undefined : from.signed ? isNotNull(t.signedTx) : isNull(t.signedTx);
      const [row] = await db.update(t).set(patch).where(and(eq(t.id, id), eq(t.status, from.status), signed)).returning();
      return row;
    },
    async moveTransfer(id: string, from: { status: string; signed?: boolean }, patch: Partial<SandboxTransferRow>): Promise<SandboxTransferRow | undefined> {
      const t = custodyASandboxTransfers;
      const signed = from.signed === undefined ? undefined : from.signed ? isNotNull(t.signedTx) : isNull(t.signedTx);
      const [row] = await db.update(t).set(patch).where(and(eq(t.id, id), eq(t.status, from.status), signed)).returning();
      return row;
    },
    findTransactionById: async (id: string) => first(await transactionById({ id })),
    findTransferById: async (id: string) => first(await db.select().from(custodyASandboxTransfers).where(eq(custodyASandboxTransfers.id, id)).limit(1)),
    async updateTransaction(id: string, patch: Partial<SandboxTransactionRow>): Promise<SandboxTransactionRow> {
      const [row] = await db.update(custodyASandboxTransactions).set(patch).where(eq(custodyASandboxTransactions.id, id)).returning();
      return row!;
    },

    async insertTransfer(row: typeof custodyASandboxTransfers.$inferInsert): Promise<{ row: SandboxTransferRow; created: boolean }> {
      const inserted = await db.insert(custodyASandboxTransfers).values(row).onConflictDoNothing().returning();
      if (inserted[0]) return { row: inserted[0], created: true };
      const existing = first(
        await db
          .select()
          .from(custodyASandboxTransfers)
          .where(and(eq(custodyASandboxTransfers.apiKey, row.apiKey), eq(custodyASandboxTransfers.idempotentId, row.idempotentId)))
          .limit(1),
      );
      return { row: existing!, created: false };
    },
    findTransfer: async (apiKey: string, id: string) =>
      first(await db.select().from(custodyASandboxTransfers).where(and(eq(custodyASandboxTransfers.apiKey, apiKey), eq(custodyASandboxTransfers.id, id))).limit(1)),
    async updateTransfer(id: string, patch: Partial<SandboxTransferRow>): Promise<SandboxTransferRow> {
      const [row] = await db.update(custodyASandboxTransfers).set(patch).where(eq(custodyASandboxTransfers.id, id)).returning();
      return row!;
    },
  };
}

export type SandboxStore = ReturnType<typeof createSandboxStore>;
