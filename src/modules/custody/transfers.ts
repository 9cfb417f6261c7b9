import type { SQLWrapper } from 'drizzle-orm';
import type { CallContext, UserContext } from '../../platform/http/context.js';
import { ownedBy } from '../users/acting-for.js';
import { actorFromAudit, auditActor, SYSTEM_ACTOR, type Actor } from '../../platform/audit/actor.js';
import { newId, type Clock } from '../../platform/clock.js';
import type { SecretBox } from '../../platform/crypto/secrets.js';
import type { DbOrTx } from '../../platform/db/client.js';
import type { RunInTx } from '../../platform/db/tx.js';
import { writeTogether } from '../../platform/db/write-together.js';
import { appendEventStatement } from '../../platform/events/outbox.js';
import { paginate, type Page, type PageParams } from '../../platform/http/pagination.js';
import { beforeEffects } from '../../platform/idempotency/before-effects.js';
import { FINAL_TRANSFER_STATUSES, type CustodyTransfer, type TransferStatus } from '../../providers/custody/port.js';
import type { AuditService } from '../audit/service.js';
import type { WalletsService } from '../wallets/service.js';
import { notFoundAs } from '../../platform/providers/errors.js';
import { CustodyErrors } from './errors.js';
import { CUSTODY_A, type CustodyAProvider } from './provider.js';
import type { CustodyRepo } from './repo.js';
import { QUESTIONNAIRE_ENUMS, type AdminTransferDto, type AdminTransferListQuery, type NonCustodialTransferBody, type QuestionnaireInput, type TransferDto } from './schemas.js';
import type { CustodyTransferRow } from './table.js';
import { transferStatusRank } from './status-order.js';
import { externalIdOf } from './transactions.js';
import { checkEvmAddress, checkQty } from './validation.js';

/** The enumerations' known values (the spec names these; others are 400). */
export const TRANSFER_ENUMS = {
  sourceType: ['WALLET'],
  destinationType: ['ADDRESS'],
  assetType: ['ETH'],
  provider: [CUSTODY_A],
} as const;
/** What a transfer to an institution must carry for the travel rule. */
const INSTITUTION_REQUIRED = ['recipientType', 'purpose', 'originatorType', 'institutionName', 'institutionCountry', 'originatorName', 'originatorCountry'] as const;
const SELFHOSTED_REQUIRED = ['purpose', 'originatorType', 'originatorName', 'originatorCountry'] as const;

/** The order statuses move in (status-order.ts): a webhook or read never moves a transfer back. */
const rank = transferStatusRank;
const context = (tenantId: string, id: string) => `custody-transfer:${tenantId}:${id}`;

function checkEnum(value: string, allowed: readonly string[], field: string): void {
  if (!allowed.includes(value)) throw CustodyErrors.enumUnknown(field, allowed);
}

export function createTransfersService(deps: {
  repo: CustodyRepo;
  tx: RunInTx;
  clock: Clock;
  secrets: SecretBox;
  wallets: WalletsService;
  audit: AuditService;
  provider: CustodyAProvider;
}) {
  const { repo, tx, clock, secrets, wallets, audit, provider } = deps;

  async function toDto(row: CustodyTransferRow, withQuestionnaire: boolean, tenantId: string): Promise<TransferDto> {
    const dto: TransferDto = {
      id: row.id, userId: row.userId, provider: row.provider, idempotentId: row.idempotentId, amount: row.amount, assetType: row.assetType,
      sourceId: row.sourceWalletId, sourceType: row.sourceType, destinationId: row.destinationId, destinationType: row.destinationType,
      deductFeeFromAmountIfSameType: row.deductFeeFromAmountIfSameType, transferMemo: row.transferMemo, status: row.status,
      providerTransferId: row.providerTransferId, hash: row.hash, failureReason: row.failureReason, hasQuestionnaire: row.questionnaireSealed !== null,
      createdAt: row.createdAt.toISOString(), updatedAt: row.updatedAt.toISOString(),
    };
    if (withQuestionnaire) {
      dto.transferAmlQuestionnaire = row.questionnaireSealed ? (JSON.parse(await secrets.decrypt(row.questionnaireSealed, context(tenantId, row.id))) as QuestionnaireInput) : null;
    }
    return dto;
  }

  /** The rows as an admin sees them: no travel-rule data, each with its statuses from the audit log (oldest first). */
  async function withHistory(tenantId: string, rows: CustodyTransferRow[]): Promise<AdminTransferDto[]> {
    const history = await audit.history(tenantId, 'transfer', rows.map((r) => r.id));
    return Promise.all(
      rows.map(async (row) => {
        const { transferAmlQuestionnaire: _q, ...dto } = await toDto(row, false, tenantId);
        const steps = history.filter((a) => a.objectId === row.id).map((a) => {
          const step = a.details as { status?: string; chainHash?: string | null };
          return { status: String(step.status ?? ''), hash: step.chainHash ?? null, actor: actorFromAudit(a.actorType, a.actorId), at: a.createdAt.toISOString() };
        });
        return { ...dto, history: steps };
      }),
    );
  }

  /** Moves the row forward to what the provider says (under the row's lock: a webhook and a read at once record one change). */
  async function apply(db: DbOrTx, tenantId: string, stale: CustodyTransferRow, seen: CustodyTransfer, by: Actor): Promise<CustodyTransferRow> {
    if (rank(seen.status) <= rank(stale.status) && !(seen.blockchainTxId && !stale.hash)) return stale;
    const row = (await repo.lockTransfer(tenantId, stale.id, db)) ?? stale;
    if (rank(seen.status) <= rank(row.status) && !(seen.blockchainTxId && !row.hash)) return row;
    const status = rank(seen.status) > rank(row.status) ? seen.status : row.status;
    const updated = await repo.updateTransfer(tenantId, row.id, { status, hash: seen.blockchainTxId ?? row.hash, failureReason: seen.failureReason ?? row.failureReason, updatedAt: clock.now() }, db);
    if (status !== row.status) {
      const facts = { transferId: row.id, userId: row.userId, provider: row.provider, status, hash: updated.hash };
      // The event of a final status and the audit row commit in one statement.
      const writes: SQLWrapper[] = [audit.statement(tenantId, { type: 'transfer.updated', ...auditActor(by), subjectUserId: row.userId, object: { type: 'transfer', id: row.id }, details: { ...facts, chainHash: updated.hash } })];
      if (status === 'COMPLETED') writes.push(appendEventStatement(db, tenantId, 'transfer.completed', { ...facts, kind: 'non-custodial-evm' }));
      if (status === 'FAILED') writes.push(appendEventStatement(db, tenantId, 'transfer.failed', { ...facts, kind: 'non-custodial-evm' }));
      await writeTogether(db, writes);
    }
    return updated;
  }

  /**
   * Every check made before the provider is asked (nothing changes here): the enumerations, the
   * amount, the destination, the travel-rule data of its case, the caller's source wallet.
   */
  async function check(ctx: UserContext, body: NonCustodialTransferBody) {
    const { tenantId } = ctx;
    if (!(TRANSFER_ENUMS.provider as readonly string[]).includes(body.provider)) throw CustodyErrors.providerUnknown(TRANSFER_ENUMS.provider);
    checkEnum(body.sourceType, TRANSFER_ENUMS.sourceType, 'body.sourceType');
    checkEnum(body.destinationType, TRANSFER_ENUMS.destinationType, 'body.destinationType');
    checkEnum(body.assetType, TRANSFER_ENUMS.assetType, 'body.assetType');
    const amount = checkQty(body.amount, 18, 'body.amount');
    const destination = checkEvmAddress(body.destinationId, 'body.destinationId');
    const q = body.transferAmlQuestionnaire;
    if (q) {
      for (const [field, allowed] of Object.entries(QUESTIONNAIRE_ENUMS)) {
        const value = q[field as keyof QuestionnaireInput];
        if (value !== undefined) checkEnum(value, allowed, `body.transferAmlQuestionnaire.${field}`);
      }
      const destinationType = q.destinationType as (typeof QUESTIONNAIRE_ENUMS.destinationType)[number] | undefined;
      if (!destinationType) throw CustodyErrors.questionnaireRequired(undefined, ['destinationType']);
      const required = destinationType === 'SELFHOSTED_WALLET' ? SELFHOSTED_REQUIRED : INSTITUTION_REQUIRED;
      const missing = required.filter((f) => !q[f]);
      if (missing.length) throw CustodyErrors.questionnaireRequired(destinationType, missing);
    }
    const source = await wallets.findById(tenantId, body.sourceId);
    if (!source || source.userId !== ctx.userId || source.chain !== 'evm' || source.provider !== body.provider || !source.providerRef) throw CustodyErrors.sourceInvalid();
    return { amount, destination, q, source };
  }

  async function visible(ctx: CallContext, id: string): Promise<CustodyTransferRow> {
    const { tenantId } = ctx;
    return ownedBy(ctx, await repo.findTransfer(tenantId, id), CustodyErrors.transferNotFound);
  }

  return {
    /**
     * Validates, forwards with the provider-side idempotentId, records; the travel-rule data
     * sealed. A refusal before the provider is asked gives the idempotentId back (beforeEffects).
     */
    async create(ctx: UserContext, body: NonCustodialTransferBody): Promise<TransferDto> {
      const { tenantId } = ctx;
      const { amount, destination, q, source } = await beforeEffects(() => check(ctx, body));
      // Without a questionnaire the destination must not be an institution: we cannot know, so
      // a transfer without one is taken as to a self-hosted wallet of the caller's (documented).
      const client = await provider.client(tenantId);
      const seen = await notFoundAs(
        client.createTransfer({
          sourceWalletId: source.providerRef!, destinationAddress: destination, assetType: body.assetType, amount,
          idempotentId: externalIdOf(ctx.idempotencyCaller, body.idempotentId), deductFeeFromAmountIfSameType: body.deductFeeFromAmountIfSameType ?? false,
          ...(body.transferMemo !== undefined ? { transferMemo: body.transferMemo } : {}),
          ...(q ? { transferAmlQuestionnaire: q as Record<string, string> } : {}),
        }),
        CustodyErrors.sourceInvalid,
      );
      const row = await tx(async (db) => {
        const existing = await repo.findTransferByProviderId(tenantId, body.provider, seen.transferId, db);
        if (existing) return apply(db, tenantId, existing, seen, ctx.actor);
        const id = newId();
        const now = clock.now();
        const inserted = await repo.insertTransfer(
          tenantId,
          {
            id, userId: ctx.userId, provider: body.provider, idempotentId: body.idempotentId, sourceWalletId: source.id, sourceType: body.sourceType,
            destinationId: destination, destinationType: body.destinationType, assetType: body.assetType, amount,
            deductFeeFromAmountIfSameType: body.deductFeeFromAmountIfSameType ?? false, transferMemo: body.transferMemo ?? null,
            questionnaireSealed: q ? secrets.encrypt(JSON.stringify(q), context(tenantId, id)) : null,
            providerTransferId: seen.transferId, status: seen.status, hash: seen.blockchainTxId, failureReason: seen.failureReason, createdAt: now, updatedAt: now,
          },
          db,
        );
        const facts = { transferId: id, userId: ctx.userId, provider: body.provider, assetType: body.assetType, amount, destinationId: destination, status: seen.status };
        await writeTogether(db, [
          appendEventStatement(db, tenantId, 'transfer.submitted', { ...facts, kind: 'non-custodial-evm', actor: ctx.actor }),
          audit.statement(tenantId, {
            type: 'transfer.submitted', ...auditActor(ctx.actor), subjectUserId: ctx.userId, object: { type: 'transfer', id }, details: { ...facts, chainHash: seen.blockchainTxId },
          }),
        ]);
        return inserted!;
      });
      return toDto(row, false, tenantId);
    },

    /** One transfer, refreshed from the provider unless final; the questionnaire only for the API key or an admin. */
    async get(ctx: CallContext, id: string): Promise<TransferDto> {
      const { tenantId } = ctx;
      let row = await visible(ctx, id);
      if (!FINAL_TRANSFER_STATUSES.includes(row.status as TransferStatus)) {
        const client = await provider.client(tenantId);
        const seen = await notFoundAs(client.getTransfer(row.providerTransferId), CustodyErrors.transferNotFound);
        row = await tx((db) => apply(db, tenantId, row, seen, ctx.actor));
      }
      return toDto(row, ctx.privileged, tenantId);
    },

    async list(tenantId: string, userId: string, page: PageParams): Promise<Page<TransferDto>> {
      const result = await paginate(() => repo.countTransfers(tenantId, userId), () => repo.listTransfers(tenantId, userId, page), (r) => r);
      return { total: result.total, data: await Promise.all(result.data.map((r) => toDto(r, false, tenantId))) };
    },

    /**
     * The tenant's transfers for an admin or the back end, newest first, each with its recorded
     * statuses (the audit log's rows of the transfer; read as stored, no provider call).
     */
    async listForTenant(tenantId: string, query: AdminTransferListQuery): Promise<Page<AdminTransferDto>> {
      const { status, userId, limit, offset, beforeId } = query;
      const filters = { ...(status !== undefined ? { status } : {}), ...(userId !== undefined ? { userId } : {}) };
      const page = { limit, offset, ...(beforeId !== undefined ? { beforeId } : {}) };
      const result = await paginate(() => repo.countTenantTransfers(tenantId, filters), () => repo.listTenantTransfers(tenantId, filters, page), (r) => r);
      return { total: result.total, data: await withHistory(tenantId, result.data) };
    },

    /** One transfer of the tenant with its recorded statuses, as stored (another tenant's is 404). */
    async getForTenant(tenantId: string, id: string): Promise<AdminTransferDto> {
      const row = await repo.findTransfer(tenantId, id);
      if (!row) throw CustodyErrors.transferNotFound();
      return (await withHistory(tenantId, [row]))[0]!;
    },

    /** The in-flight follower's step: asks the provider and moves the record forward (see transactions.follow). */
    async follow(row: CustodyTransferRow): Promise<void> {
      const client = await provider.client(row.tenantId);
      const seen = await client.getTransfer(row.providerTransferId);
      await tx((db) => apply(db, row.tenantId, row, seen, SYSTEM_ACTOR));
    },

    /** A provider webhook's transfer (already verified), applied in the delivery's transaction `db`; false when no such transfer is recorded (yet). */
    async fromWebhook(tenantId: string, seen: CustodyTransfer, db: DbOrTx): Promise<boolean> {
      const row = await repo.findTransferByProviderId(tenantId, CUSTODY_A, seen.transferId, db);
      if (row) await apply(db, tenantId, row, seen, { type: 'provider', id: CUSTODY_A });
      return row !== undefined;
    },
  };
}

export type TransfersService = ReturnType<typeof createTransfersService>;
