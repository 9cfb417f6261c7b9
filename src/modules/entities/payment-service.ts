import type { Clock } from '../../platform/clock.js';
import { newId } from '../../platform/clock.js';
import type { SecretBox } from '../../platform/crypto/secrets.js';
import type { RunInTx } from '../../platform/db/tx.js';
import { appendEvent, type EventType } from '../../platform/events/outbox.js';
import type { Page, PageParams } from '../../platform/http/pagination.js';
import type { AuditType } from '../../platform/audit/types.js';
import type { CallContext } from '../../platform/http/context.js';
import type { AuditService } from '../audit/service.js';
import { auditActor, type EntityAccessService } from './access.js';
import { PaymentMethodErrors } from './errors.js';
import { kindOf, mask, prepareDetails, type PreparedDetails } from './payment-details.js';
import type { PaymentMethodsRepo } from './payment-repo.js';
import type { CreatePaymentMethodInput, PaymentMethodDto, UpdatePaymentMethodInput } from './payment-schemas.js';
import { holds, type Permission } from './permissions.js';
import type { PaymentMethodRow } from './table.js';

/**
 * Manual payment methods of an entity. Account numbers and IBANs are sealed by the SecretBox
 * (bound to the tenant and method id) and answered in full only to callers holding
 * manage_payment_methods; everyone else with `view` sees the last four characters.
 */
export function createPaymentMethodsService(deps: {
  repo: PaymentMethodsRepo;
  access: EntityAccessService;
  tx: RunInTx;
  clock: Clock;
  secrets: SecretBox;
  audit: AuditService;
}) {
  const { repo, access, tx, clock, secrets, audit } = deps;
  const context = (tenantId: string, id: string) => `entity-payment-method:${tenantId}:${id}`;

  function sealed(tenantId: string, id: string, prepared: PreparedDetails) {
    const entries = Object.entries(prepared.sensitive);
    return {
      currency: prepared.currency,
      details: prepared.clear,
      sensitiveSealed: entries.length === 0 ? null : secrets.encrypt(JSON.stringify(prepared.sensitive), context(tenantId, id)),
      sensitiveLast4: Object.fromEntries(entries.map(([k, v]) => [k, v.slice(-4)])),
    };
  }

  async function toDto(tenantId: string, row: PaymentMethodRow, permissions: Permission[]): Promise<PaymentMethodDto> {
    const reveal = holds(permissions, 'manage_payment_methods');
    const sensitive: Record<string, string> =
      reveal && row.sensitiveSealed
        ? (JSON.parse(await secrets.decrypt(row.sensitiveSealed, context(tenantId, row.id))) as Record<string, string>)
        : Object.fromEntries(Object.entries(row.sensitiveLast4).map(([k, last4]) => [k, mask(last4)]));
    return {
      id: row.id,
      entityId: row.entityId,
      kind: row.kind,
      label: row.label,
      currency: row.currency,
      details: { ...row.details, ...sensitive },
      masked: !reveal && Object.keys(row.sensitiveLast4).length > 0,
      archived: row.archived,
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
    };
  }

  async function record(db: Parameters<Parameters<RunInTx>[0]>[0], ctx: CallContext, type: EventType & AuditType, row: PaymentMethodRow, changed: string[]) {
    const { tenantId, actor } = ctx;
    const details = { entityId: row.entityId, methodId: row.id, kind: row.kind, changed };
    await audit.record(db, tenantId, { type, ...auditActor(actor), details });
    await appendEvent(db, tenantId, type, { ...details, archived: row.archived, actor });
  }

  return {
    async create(ctx: CallContext, entityId: string, input: CreatePaymentMethodInput): Promise<PaymentMethodDto> {
      const { tenantId } = ctx;
      const prepared = prepareDetails(input.details);
      return tx(async (db) => {
        const { permissions } = await access.require(tenantId, entityId, ctx, 'manage_payment_methods', db);
        const id = newId();
        const now = clock.now();
        const row = await repo.insert(
          tenantId,
          { id, entityId, kind: input.kind, label: input.label ?? null, ...sealed(tenantId, id, prepared), archived: false, createdBy: ctx.actor.id, createdAt: now, updatedAt: now },
          db,
        );
        await record(db, ctx, 'entity.payment_method_added', row, []);
        return toDto(tenantId, row, permissions);
      });
    },

    async list(ctx: CallContext, entityId: string, includeArchived: boolean, page: PageParams): Promise<Page<PaymentMethodDto>> {
      const { tenantId } = ctx;
      const { permissions } = await access.require(tenantId, entityId, ctx, 'view');
      const [total, rows] = await Promise.all([repo.count(tenantId, entityId, includeArchived), repo.list(tenantId, entityId, includeArchived, page)]);
      return { total, data: await Promise.all(rows.map((row) => toDto(tenantId, row, permissions))) };
    },

    async get(ctx: CallContext, entityId: string, id: string): Promise<PaymentMethodDto> {
      const { tenantId } = ctx;
      const { permissions } = await access.require(tenantId, entityId, ctx, 'view');
      const row = await repo.find(tenantId, entityId, id);
      if (!row) throw PaymentMethodErrors.notFound();
      return toDto(tenantId, row, permissions);
    },

    /** Label, archived flag, and/or a full replacement of the details (same kind). */
    async update(ctx: CallContext, entityId: string, id: string, input: UpdatePaymentMethodInput): Promise<PaymentMethodDto> {
      const { tenantId } = ctx;
      const prepared = input.details ? prepareDetails(input.details) : undefined;
      return tx(async (db) => {
        const { permissions } = await access.require(tenantId, entityId, ctx, 'manage_payment_methods', db);
        const row = await repo.find(tenantId, entityId, id, db, true);
        if (!row) throw PaymentMethodErrors.notFound();
        if (input.details && kindOf(input.details) !== row.kind) throw PaymentMethodErrors.kindMismatch();
        const changed = Object.keys(input).filter((k) => (input as Record<string, unknown>)[k] !== undefined);
        const updated = await repo.update(
          tenantId,
          id,
          {
            ...(input.label !== undefined ? { label: input.label } : {}),
            ...(input.archived !== undefined ? { archived: input.archived } : {}),
            ...(prepared ? sealed(tenantId, id, prepared) : {}),
            updatedAt: clock.now(),
          },
          db,
        );
        await record(db, ctx, 'entity.payment_method_updated', updated, changed);
        return toDto(tenantId, updated, permissions);
      });
    },
  };
}

export type PaymentMethodsService = ReturnType<typeof createPaymentMethodsService>;
