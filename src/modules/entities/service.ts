import type { Clock } from '../../platform/clock.js';
import { newId } from '../../platform/clock.js';
import type { RunInTx } from '../../platform/db/tx.js';
import { mapConstraintErrors } from '../../platform/db/pg-errors.js';
import { appendEvent } from '../../platform/events/outbox.js';
import type { Page, PageParams } from '../../platform/http/pagination.js';
import type { CallContext } from '../../platform/http/context.js';
import type { AuditService } from '../audit/service.js';
import type { UsersService } from '../users/service.js';
import { auditActor, type EntityAccessService } from './access.js';
import { subjectFor } from '../users/acting-for.js';
import { EntityErrors } from './errors.js';
import { PERMISSIONS, type Permission } from './permissions.js';
import type { EntitiesRepo } from './repo.js';
import type { CreateEntityInput, EntityDto } from './schemas.js';
import type { EntityRow } from './table.js';
import { isCountryCode, isValidLei, metadataWithinLimits } from './validation.js';

export function toEntityDto(row: EntityRow, permissions: Permission[]): EntityDto {
  return {
    id: row.id,
    legalName: row.legalName,
    type: row.type,
    jurisdiction: row.jurisdiction,
    registrationNumber: row.registrationNumber,
    lei: row.lei,
    address: row.address,
    metadata: row.metadata,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    permissions,
  };
}

function checkMetadata(metadata: Record<string, unknown>): void {
  if (!metadataWithinLimits(metadata)) throw EntityErrors.metadataTooLarge(16 * 1024);
}

/** Entities: creation (the owner gets every permission), reads, and metadata. */
export function createEntitiesService(deps: {
  repo: EntitiesRepo;
  access: EntityAccessService;
  tx: RunInTx;
  clock: Clock;
  users: UsersService;
  audit: AuditService;
}) {
  const { repo, access, tx, clock, users, audit } = deps;

  return {
    async create(ctx: CallContext, input: CreateEntityInput): Promise<EntityDto> {
      const { tenantId } = ctx;
      let ownerId: string;
      if (await access.isPrivileged(tenantId, ctx)) {
        if (!input.userId) throw EntityErrors.userIdRequired();
        ownerId = input.userId;
      } else {
        // The own-record rule (src/modules/users/acting-for.ts): a plain user naming another user is 404.
        ownerId = subjectFor({ userId: ctx.userId, privileged: false }, input.userId, EntityErrors.userIdRequired);
      }
      if (!isCountryCode(input.jurisdiction)) throw EntityErrors.countryInvalid('body.jurisdiction');
      if (!isCountryCode(input.address.country)) throw EntityErrors.countryInvalid('body.address.country');
      if (input.lei !== undefined && !isValidLei(input.lei)) throw EntityErrors.leiInvalid();
      const metadata = input.metadata ?? {};
      checkMetadata(metadata);
      if (!(await users.findRow(tenantId, ownerId))) throw EntityErrors.userNotFound();
      const actor = ctx.actor;
      const now = clock.now();
      return tx(async (db) => {
        const row = await mapConstraintErrors(
          () =>
            repo.insertEntity(
              tenantId,
              {
                id: newId(),
                legalName: input.legalName.trim(),
                type: input.type,
                jurisdiction: input.jurisdiction,
                registrationNumber: input.registrationNumber.trim(),
                lei: input.lei ?? null,
                address: input.address,
                metadata,
                createdBy: actor.id,
                createdAt: now,
                updatedAt: now,
              },
              db,
            ),
          { entities_tenant_lei_unique: EntityErrors.leiTaken },
        );
        await repo.insertMember(tenantId, { entityId: row.id, userId: ownerId, addedBy: actor.id, createdAt: now }, db);
        for (const permission of PERMISSIONS) await repo.grant(tenantId, row.id, ownerId, permission, actor.id, now, db);
        await audit.record(db, tenantId, {
          type: 'entity.created',
          ...auditActor(actor),
          subjectUserId: ownerId,
          details: { entityId: row.id, type: row.type, jurisdiction: row.jurisdiction },
        });
        await appendEvent(db, tenantId, 'entity.created', { entityId: row.id, ownerUserId: ownerId, type: row.type, actor });
        // The owner and the tenant's service both hold every permission on a new entity.
        return toEntityDto(row, [...PERMISSIONS]);
      });
    },

    async list(ctx: CallContext, filter: { userId?: string }, page: PageParams): Promise<Page<EntityDto>> {
      const { tenantId } = ctx;
      const privileged = await access.isPrivileged(tenantId, ctx);
      let userId = filter.userId;
      if (!privileged) userId = subjectFor({ userId: ctx.userId, privileged: false }, userId, EntityErrors.userIdRequired);
      const [total, rows] = await Promise.all([repo.countEntities(tenantId, userId), repo.listEntities(tenantId, userId, page)]);
      if (privileged) return { total, data: rows.map((row) => toEntityDto(row, [...PERMISSIONS])) };
      const data = await Promise.all(
        rows.map(async (row) => toEntityDto(row, (await access.require(tenantId, row.id, ctx, null)).permissions)),
      );
      return { total, data };
    },

    async get(ctx: CallContext, id: string): Promise<EntityDto> {
      const { tenantId } = ctx;
      const { entity, permissions } = await access.require(tenantId, id, ctx, 'view');
      return toEntityDto(entity, permissions);
    },

    /** Replaces the metadata object (needs manage_entity). */
    async replaceMetadata(ctx: CallContext, id: string, metadata: Record<string, unknown>): Promise<EntityDto> {
      const { tenantId } = ctx;
      checkMetadata(metadata);
      const actor = ctx.actor;
      return tx(async (db) => {
        const { permissions } = await access.require(tenantId, id, ctx, 'manage_entity', db, true);
        const row = await repo.updateEntity(tenantId, id, { metadata, updatedAt: clock.now() }, db);
        await audit.record(db, tenantId, {
          type: 'entity.metadata_replaced',
          ...auditActor(actor),
          details: { entityId: id, keys: Object.keys(metadata).length, bytes: Buffer.byteLength(JSON.stringify(metadata)) },
        });
        await appendEvent(db, tenantId, 'entity.updated', { entityId: id, fields: ['metadata'], actor });
        return toEntityDto(row, permissions);
      });
    },
  };
}

export type EntitiesService = ReturnType<typeof createEntitiesService>;
