import type { Clock } from '../../platform/clock.js';
import { newId } from '../../platform/clock.js';
import type { SecretBox } from '../../platform/crypto/secrets.js';
import type { DbOrTx } from '../../platform/db/client.js';
import { isUniqueViolation } from '../../platform/db/pg-errors.js';
import type { RunInTx } from '../../platform/db/tx.js';
import { appendEvent } from '../../platform/events/outbox.js';
import { paginate, type Page, type PageParams } from '../../platform/http/pagination.js';
import type { InboundWebhook } from '../../platform/providers/define.js';
import { ProviderError } from '../../platform/providers/errors.js';
import type { Providers } from '../../platform/providers/service.js';
import type { Logger } from 'pino';
import type { BusinessProfileClient, ProviderBusiness } from '../../providers/business-profile/port.js';
import type { AuditService } from '../audit/service.js';
import { actorOfCaller, auditActor, type Caller, type EntityAccessService } from './access.js';
import type { BusinessProfilesRepo } from './bp-repo.js';
import type { BusinessProfileDto, SubmitBusinessProfileInput } from './bp-schemas.js';
import { BusinessProfileErrors } from './errors.js';
import type { BusinessProfileRow, ProfileStatus } from './table.js';

/** The provider-settings kind and the one provider of it. */
export const BUSINESS_PROFILE_KIND = 'business-profile';
export const PROVIDER = 'business-profile-a';

const LIVE: ReadonlySet<ProfileStatus> = new Set(['submitting', 'pending', 'in_review', 'approved']);

function toDto(row: BusinessProfileRow): BusinessProfileDto {
  return {
    id: row.id,
    entityId: row.entityId,
    provider: 'business-profile-a',
    providerBusinessId: row.providerBusinessId,
    status: row.status,
    tasks: row.tasks as BusinessProfileDto['tasks'],
    tin: `*****${row.tinLast4}`,
    failure: row.failure,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/**
 * The entity's business profile at business-profile-a: submitted by a holder of manage_entity
 * (one live submission at a time), then kept current by the provider's signed webhooks.
 */
export function createBusinessProfilesService(deps: {
  repo: BusinessProfilesRepo;
  access: EntityAccessService;
  providers: Providers;
  tx: RunInTx;
  clock: Clock;
  secrets: SecretBox;
  audit: AuditService;
  logger: Logger;
}) {
  const { repo, access, providers, tx, clock, secrets, audit, logger } = deps;
  /** The tenant's provider: business-profile-a as configured, else its sandbox (platform.providers). */
  const client = (tenantId: string): Promise<BusinessProfileClient> => providers.port(tenantId, BUSINESS_PROFILE_KIND, PROVIDER);
  const tinContext = (tenantId: string, id: string) => `business-profile-tin:${tenantId}:${id}`;

  /** Applies a provider state when it is newer than the one applied last; true when the status changed. */
  async function apply(db: DbOrTx, tenantId: string, row: BusinessProfileRow, business: ProviderBusiness): Promise<boolean> {
    if (row.providerUpdatedAt && business.updatedAt < row.providerUpdatedAt) return false;
    if (row.status === 'failed') return false;
    await repo.update(
      tenantId,
      row.id,
      { providerBusinessId: business.id, status: business.status, tasks: business.tasks as unknown as Array<Record<string, string>>, providerUpdatedAt: business.updatedAt, updatedAt: clock.now() },
      db,
    );
    return row.status !== business.status;
  }

  return {
    async submit(tenantId: string, entityId: string, input: SubmitBusinessProfileInput, caller: Caller): Promise<BusinessProfileDto> {
      const tin = input.tin.replace('-', '');
      const actor = actorOfCaller(caller);
      const id = newId();
      // First a committed "submitting" row: a concurrent second submission meets the unique index.
      const entity = await tx(async (db) => {
        const { entity } = await access.require(tenantId, entityId, caller, 'manage_entity', db, true);
        const latest = await repo.latest(tenantId, entityId, PROVIDER, db);
        if (latest && LIVE.has(latest.status)) throw BusinessProfileErrors.live(latest.status);
        const now = clock.now();
        try {
          await repo.insert(
            tenantId,
            {
              id,
              entityId,
              provider: PROVIDER,
              providerBusinessId: null,
              status: 'submitting',
              tasks: [],
              tinSealed: secrets.encrypt(tin, tinContext(tenantId, id)),
              tinLast4: tin.slice(-4),
              failure: null,
              submittedBy: actor.id,
              providerUpdatedAt: null,
              createdAt: now,
              updatedAt: now,
            },
            db,
          );
        } catch (error) {
          if (isUniqueViolation(error, 'business_profiles_live_unique')) throw BusinessProfileErrors.live('submitting');
          throw error;
        }
        return entity;
      });

      let business: ProviderBusiness;
      try {
        const provider = await client(tenantId);
        business = await provider.createBusiness({
          externalId: id,
          name: entity.legalName,
          tin,
          addresses: [
            {
              addressLine1: entity.address.line1,
              addressLine2: entity.address.line2,
              city: entity.address.city,
              state: entity.address.region,
              postalCode: entity.address.postalCode,
              country: entity.address.country,
            },
          ],
          people: input.people ?? [],
          website: input.website,
        });
      } catch (error) {
        // The submission went nowhere (no provider to ask, or it failed): the profile ends failed,
        // so the entity may submit again; the provider's failure answers with its reason's status.
        const failure = error instanceof Error ? error.message : String(error);
        await repo.update(tenantId, id, { status: 'failed', failure, updatedAt: clock.now() });
        if (error instanceof ProviderError && error.reason !== 'not_configured') {
          logger.warn({ tenantId, entityId, profileId: id, reason: error.reason, failure }, 'business-profile-a submission failed');
        }
        throw error;
      }

      return tx(async (db) => {
        const row = (await repo.findById(tenantId, id, db, true))!;
        await apply(db, tenantId, row, business);
        const details = { entityId, profileId: id, providerBusinessId: business.id, status: business.status };
        await audit.record(db, tenantId, { type: 'entity.business_profile_submitted', ...auditActor(actor), details });
        await appendEvent(db, tenantId, 'entity.business_profile_submitted', { ...details, actor });
        return toDto((await repo.findById(tenantId, id, db))!);
      });
    },

    /** Every profile of the tenant awaiting the provider's decision, oldest first (the route admits only an API key or an admin). */
    async listAwaiting(tenantId: string, page: PageParams): Promise<Page<BusinessProfileDto>> {
      return paginate(
        () => repo.countAwaiting(tenantId),
        () => repo.listAwaiting(tenantId, page),
        toDto,
      );
    },

    async get(tenantId: string, entityId: string, caller: Caller): Promise<BusinessProfileDto> {
      await access.require(tenantId, entityId, caller, 'view');
      const row = await repo.latest(tenantId, entityId, PROVIDER);
      if (!row) throw BusinessProfileErrors.notFound();
      return toDto(row);
    },

    /**
     * A webhook of the tenant's provider: verified by the provider's definition (the signature
     * over the raw body under the tenant's secret), else 401; applied once per event id (the
     * platform's inbound_webhooks); a state older than the one applied changes nothing.
     */
    async webhook(request: InboundWebhook): Promise<{ received: true; applied: boolean }> {
      const tenantId = request.tenantId.toLowerCase();
      const inbound = { ...request, tenantId };
      // A tenant without settings (or unknown) is refused before anything is made for it.
      let port: BusinessProfileClient;
      try {
        port = await providers.verifyWebhook(tenantId, BUSINESS_PROFILE_KIND, inbound, PROVIDER, { unknownTenant: BusinessProfileErrors.webhookUnauthorized });
      } catch (error) {
        if (error instanceof ProviderError && error.reason === 'not_configured') throw BusinessProfileErrors.webhookUnauthorized();
        throw error;
      }
      const event = port.parseEvent(request.rawBody);
      if (event === 'malformed') throw BusinessProfileErrors.webhookMalformed();
      const business = event.business;
      let applied = false;
      await providers.once(
        tenantId,
        BUSINESS_PROFILE_KIND,
        { id: event.id },
        inbound,
        async (db) => {
          const byExternal = business.externalId && /^[0-9a-f-]{36}$/.test(business.externalId) ? await repo.findById(tenantId, business.externalId, db, true) : undefined;
          const row = byExternal ?? (await repo.findByProviderId(tenantId, PROVIDER, business.id, db));
          if (!row) return;
          const locked = byExternal ? row : (await repo.findById(tenantId, row.id, db, true))!;
          applied = await apply(db, tenantId, locked, business);
          if (applied) {
            const details = { entityId: row.entityId, profileId: row.id, providerBusinessId: business.id, from: locked.status, status: business.status, eventId: event.id };
            await audit.record(db, tenantId, { type: 'entity.business_profile_updated', actorType: 'system', actorId: PROVIDER, details });
            await appendEvent(db, tenantId, 'entity.business_profile_updated', details);
          }
        },
        PROVIDER,
      );
      return { received: true as const, applied };
    },
  };
}

export type BusinessProfilesService = ReturnType<typeof createBusinessProfilesService>;
