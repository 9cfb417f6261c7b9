import { and, asc, count, eq, isNull, max } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import {
  bankLinkSandboxClients,
  bankLinkSandboxItems,
  bankLinkSandboxLinkTokens,
  bankLinkSandboxOriginators,
  bankLinkSandboxPublicTokens,
  bankLinkSandboxQuestionnaires,
  bankLinkSandboxWebhookKeys,
  type SandboxItemRow,
  type SandboxLinkTokenRow,
  type SandboxOriginatorRow,
} from './table.js';

/** The sandbox's queries. Every row is found by a hash of its token or by the client it belongs to. */
export function createSandboxStore(db: DbOrTx) {
  return {
    async findClient(clientId: string) {
      const [row] = await db.select().from(bankLinkSandboxClients).where(eq(bankLinkSandboxClients.clientId, clientId)).limit(1);
      return row;
    },
    async upsertClient(row: typeof bankLinkSandboxClients.$inferInsert) {
      await db
        .insert(bankLinkSandboxClients)
        .values(row)
        .onConflictDoUpdate({ target: bankLinkSandboxClients.clientId, set: { secretHash: row.secretHash, webhookUrl: row.webhookUrl } });
    },

    async insertLinkToken(row: SandboxLinkTokenRow) {
      await db.insert(bankLinkSandboxLinkTokens).values(row);
    },
    async findLinkToken(tokenHash: string, tx: DbOrTx = db, lock = false): Promise<SandboxLinkTokenRow | undefined> {
      const q = tx.select().from(bankLinkSandboxLinkTokens).where(eq(bankLinkSandboxLinkTokens.tokenHash, tokenHash)).limit(1);
      const [row] = lock ? await q.for('update') : await q;
      return row;
    },
    async updateLinkToken(tokenHash: string, changes: Partial<SandboxLinkTokenRow>, tx: DbOrTx = db) {
      await tx.update(bankLinkSandboxLinkTokens).set(changes).where(eq(bankLinkSandboxLinkTokens.tokenHash, tokenHash));
    },

    async insertItem(row: SandboxItemRow, tx: DbOrTx = db) {
      await tx.insert(bankLinkSandboxItems).values(row);
    },
    async findItemByAccessToken(clientId: string, accessTokenHash: string): Promise<SandboxItemRow | undefined> {
      const [row] = await db
        .select()
        .from(bankLinkSandboxItems)
        .where(and(eq(bankLinkSandboxItems.clientId, clientId), eq(bankLinkSandboxItems.accessTokenHash, accessTokenHash), isNull(bankLinkSandboxItems.removedAt)))
        .limit(1);
      return row;
    },
    async updateItem(itemId: string, changes: Partial<SandboxItemRow>, tx: DbOrTx = db) {
      await tx.update(bankLinkSandboxItems).set(changes).where(eq(bankLinkSandboxItems.itemId, itemId));
    },

    async insertPublicToken(row: typeof bankLinkSandboxPublicTokens.$inferInsert, tx: DbOrTx = db) {
      await tx.insert(bankLinkSandboxPublicTokens).values(row);
    },
    /** Marks a live public token of the client used, atomically; returns it or undefined. */
    async consumePublicToken(clientId: string, tokenHash: string, now: Date, tx: DbOrTx = db) {
      const [row] = await tx
        .update(bankLinkSandboxPublicTokens)
        .set({ usedAt: now })
        .where(and(eq(bankLinkSandboxPublicTokens.tokenHash, tokenHash), eq(bankLinkSandboxPublicTokens.clientId, clientId), isNull(bankLinkSandboxPublicTokens.usedAt)))
        .returning();
      return row;
    },

    /** Numbers the client's originators in order: the client row is locked while the next number is taken. */
    async insertOriginator(row: Omit<SandboxOriginatorRow, 'seq'>, tx: DbOrTx = db): Promise<SandboxOriginatorRow> {
      await tx.select({ id: bankLinkSandboxClients.clientId }).from(bankLinkSandboxClients).where(eq(bankLinkSandboxClients.clientId, row.clientId)).for('update');
      const [last] = await tx.select({ seq: max(bankLinkSandboxOriginators.seq) }).from(bankLinkSandboxOriginators).where(eq(bankLinkSandboxOriginators.clientId, row.clientId));
      const [created] = await tx.insert(bankLinkSandboxOriginators).values({ ...row, seq: (last?.seq ?? 0) + 1 }).returning();
      return created!;
    },
    async findOriginator(clientId: string, originatorClientId: string): Promise<SandboxOriginatorRow | undefined> {
      const [row] = await db
        .select()
        .from(bankLinkSandboxOriginators)
        .where(and(eq(bankLinkSandboxOriginators.clientId, clientId), eq(bankLinkSandboxOriginators.originatorClientId, originatorClientId)))
        .limit(1);
      return row;
    },
    async listOriginators(clientId: string, limit: number, offset: number): Promise<SandboxOriginatorRow[]> {
      return db
        .select()
        .from(bankLinkSandboxOriginators)
        .where(eq(bankLinkSandboxOriginators.clientId, clientId))
        .orderBy(asc(bankLinkSandboxOriginators.seq))
        .limit(limit)
        .offset(offset);
    },
    async countOriginators(clientId: string): Promise<number> {
      const [row] = await db.select({ n: count() }).from(bankLinkSandboxOriginators).where(eq(bankLinkSandboxOriginators.clientId, clientId));
      return Number(row?.n ?? 0);
    },
    async updateOriginator(originatorClientId: string, changes: Partial<SandboxOriginatorRow>) {
      await db.update(bankLinkSandboxOriginators).set(changes).where(eq(bankLinkSandboxOriginators.originatorClientId, originatorClientId));
    },

    async insertQuestionnaire(row: typeof bankLinkSandboxQuestionnaires.$inferInsert) {
      await db.insert(bankLinkSandboxQuestionnaires).values(row);
    },
    async findQuestionnaire(tokenHash: string) {
      const [row] = await db.select().from(bankLinkSandboxQuestionnaires).where(eq(bankLinkSandboxQuestionnaires.tokenHash, tokenHash)).limit(1);
      return row;
    },

    async currentKey() {
      const [row] = await db.select().from(bankLinkSandboxWebhookKeys).where(isNull(bankLinkSandboxWebhookKeys.expiredAt)).orderBy(asc(bankLinkSandboxWebhookKeys.createdAt)).limit(1);
      return row;
    },
    async findKey(kid: string) {
      const [row] = await db.select().from(bankLinkSandboxWebhookKeys).where(eq(bankLinkSandboxWebhookKeys.kid, kid)).limit(1);
      return row;
    },
    async insertKeyIfNone(row: typeof bankLinkSandboxWebhookKeys.$inferInsert) {
      await db.insert(bankLinkSandboxWebhookKeys).values(row).onConflictDoNothing();
    },
  };
}

export type SandboxStore = ReturnType<typeof createSandboxStore>;
