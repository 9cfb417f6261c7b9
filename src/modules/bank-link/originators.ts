import type { Actor } from '../../platform/audit/actor.js';
import type { Clock } from '../../platform/clock.js';
import { safeEqual } from '../../platform/crypto/hash.js';
import type { BankLinkPort } from '../../providers/bank-link/port.js';
import type { AuditService } from '../audit/service.js';
import { matchRedirect } from '../../platform/http/redirect-allow.js';
import { BankLinkErrors, viaProvider } from './errors.js';
import type { BankLinkRepo } from './repo.js';
import type { CreateOriginatorInput, KybInput, OriginatorDto } from './schemas.js';
import { auditActor } from './service.js';
import type { BankLinkSettingsService, ResolvedSettings } from './settings.js';

/**
 * The sandbox originator routes: a tenant on the sandbox environment creates originators,
 * lists and reads them, and starts their KYB questionnaire. The body's credentials must be
 * the tenant's own sandbox credentials (compared in constant time).
 */
export function createOriginatorsService(deps: {
  repo: BankLinkRepo;
  clock: Clock;
  port: BankLinkPort;
  settings: BankLinkSettingsService;
  audit: AuditService;
}) {
  const { repo, clock, port, settings, audit } = deps;

  async function sandboxSettings(tenantId: string): Promise<ResolvedSettings> {
    const resolved = await settings.resolve(tenantId);
    if (resolved.row.environment !== 'sandbox') throw BankLinkErrors.sandboxUnavailable();
    return resolved;
  }

  function checkCredentials(resolved: ResolvedSettings, input: { clientId: string; secret: string }): void {
    const idOk = safeEqual(input.clientId, resolved.endpoint.clientId);
    const secretOk = safeEqual(input.secret, resolved.endpoint.secret);
    if (!idOk || !secretOk) throw BankLinkErrors.credentialsInvalid();
  }

  async function own(tenantId: string, id: string) {
    const row = await repo.findOriginator(tenantId, id);
    if (!row) throw BankLinkErrors.originatorNotFound();
    return row;
  }

  return {
    async create(tenantId: string, input: CreateOriginatorInput, actor: Actor): Promise<OriginatorDto> {
      const resolved = await sandboxSettings(tenantId);
      checkCredentials(resolved, input);
      const created = await viaProvider(() => port.createOriginator(resolved.endpoint, input.companyName.trim()));
      const now = clock.now();
      await repo.insertOriginator(tenantId, { originatorClientId: created.originatorClientId, companyName: created.companyName, diligenceStatus: 'not_submitted', createdAt: now, updatedAt: now });
      // The tenant's first originator is its own (funding) profile until an operator names another.
      if (!resolved.row.originatorClientId) await settings.setOwnOriginator(tenantId, created.originatorClientId);
      await audit.record(undefined, tenantId, {
        type: 'bank_link.originator_created',
        ...auditActor(actor),
        details: { originatorId: created.originatorClientId, companyName: created.companyName },
      });
      return { id: created.originatorClientId, companyName: created.companyName, diligenceStatus: 'not_submitted' };
    },

    async list(tenantId: string, page: { count: number; offset: number }) {
      const { endpoint } = await sandboxSettings(tenantId);
      const summaries = await viaProvider(() => port.listOriginators(endpoint, page));
      const names = new Map((await repo.listOriginators(tenantId, summaries.map((s) => s.clientId))).map((r) => [r.originatorClientId, r.companyName]));
      return {
        count: page.count,
        offset: page.offset,
        data: summaries.map((s) => ({ id: s.clientId, companyName: names.get(s.clientId) ?? null, diligenceStatus: s.diligenceStatus })),
      };
    },

    async get(tenantId: string, id: string): Promise<OriginatorDto> {
      const { endpoint } = await sandboxSettings(tenantId);
      await own(tenantId, id);
      const detail = await viaProvider(() => port.getOriginator(endpoint, id));
      await repo.updateOriginator(tenantId, id, { diligenceStatus: detail.diligenceStatus, updatedAt: clock.now() });
      return { id: detail.clientId, companyName: detail.companyName, diligenceStatus: detail.diligenceStatus };
    },

    async startKyb(tenantId: string, id: string, input: KybInput, actor: Actor, appUrl?: string): Promise<{ originatorId: string; onboardingUrl: string }> {
      const resolved = await sandboxSettings(tenantId);
      checkCredentials(resolved, input);
      await own(tenantId, id);
      const allow = resolved.row.redirectAllow.length > 0 ? resolved.row.redirectAllow : appUrl ? [appUrl] : [];
      const redirect = matchRedirect(input.redirectUri, allow);
      if (!redirect) throw BankLinkErrors.redirectNotAllowed();
      const { onboardingUrl } = await viaProvider(() => port.createQuestionnaire(resolved.endpoint, id, redirect));
      await audit.record(undefined, tenantId, { type: 'bank_link.kyb_started', ...auditActor(actor), details: { originatorId: id } });
      return { originatorId: id, onboardingUrl };
    },
  };
}

export type OriginatorsService = ReturnType<typeof createOriginatorsService>;
