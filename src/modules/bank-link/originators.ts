import type { Actor } from '../../platform/audit/actor.js';
import type { Clock } from '../../platform/clock.js';
import { notFoundAs } from '../../platform/providers/errors.js';
import type { BankLinkClient } from '../../providers/bank-link/port.js';
import type { AuditService } from '../audit/service.js';
import { BankLinkErrors } from './errors.js';
import type { BankLinkProvider } from './provider.js';
import type { BankLinkRepo } from './repo.js';
import type { CreateOriginatorInput, KybInput, OriginatorDto } from './schemas.js';
import { allowedRedirect, auditActor } from './service.js';

/**
 * The sandbox originator routes: a tenant on the sandbox environment creates originators,
 * lists and reads them, and starts their KYB questionnaire. The body's credentials must be
 * the tenant's own sandbox credentials (compared in constant time).
 */
export function createOriginatorsService(deps: { repo: BankLinkRepo; clock: Clock; provider: BankLinkProvider; audit: AuditService }) {
  const { repo, clock, provider, audit } = deps;

  async function sandboxPort(tenantId: string): Promise<BankLinkClient> {
    const port = await provider.client(tenantId);
    if (port.environment !== 'sandbox') throw BankLinkErrors.sandboxUnavailable();
    return port;
  }

  function checkCredentials(port: BankLinkClient, input: { clientId: string; secret: string }): void {
    if (!port.isOwnCredential(input)) throw BankLinkErrors.credentialsInvalid();
  }

  async function own(tenantId: string, id: string) {
    const row = await repo.findOriginator(tenantId, id);
    if (!row) throw BankLinkErrors.originatorNotFound();
    return row;
  }

  return {
    async create(tenantId: string, input: CreateOriginatorInput, actor: Actor): Promise<OriginatorDto> {
      const port = await sandboxPort(tenantId);
      checkCredentials(port, input);
      const created = await port.createOriginator(input.companyName.trim());
      const now = clock.now();
      await repo.insertOriginator(tenantId, { originatorClientId: created.originatorClientId, companyName: created.companyName, diligenceStatus: 'not_submitted', createdAt: now, updatedAt: now });
      // The tenant's first originator is its own (funding) profile until an operator names another.
      if (!port.ownOriginator) await provider.setOwnOriginator(tenantId, created.originatorClientId);
      await audit.record(undefined, tenantId, {
        type: 'bank_link.originator_created',
        ...auditActor(actor),
        details: { originatorId: created.originatorClientId, companyName: created.companyName },
      });
      return { id: created.originatorClientId, companyName: created.companyName, diligenceStatus: 'not_submitted' };
    },

    async list(tenantId: string, page: { count: number; offset: number }) {
      const port = await sandboxPort(tenantId);
      const summaries = await port.listOriginators(page);
      const names = new Map((await repo.listOriginators(tenantId, summaries.map((s) => s.clientId))).map((r) => [r.originatorClientId, r.companyName]));
      return {
        count: page.count,
        offset: page.offset,
        data: summaries.map((s) => ({ id: s.clientId, companyName: names.get(s.clientId) ?? null, diligenceStatus: s.diligenceStatus })),
      };
    },

    async get(tenantId: string, id: string): Promise<OriginatorDto> {
      const port = await sandboxPort(tenantId);
      await own(tenantId, id);
      const detail = await notFoundAs(port.getOriginator(id), BankLinkErrors.originatorNotFound);
      await repo.updateOriginator(tenantId, id, { diligenceStatus: detail.diligenceStatus, updatedAt: clock.now() });
      return { id: detail.clientId, companyName: detail.companyName, diligenceStatus: detail.diligenceStatus };
    },

    async startKyb(tenantId: string, id: string, input: KybInput, actor: Actor, appUrl?: string): Promise<{ originatorId: string; onboardingUrl: string }> {
      const port = await sandboxPort(tenantId);
      checkCredentials(port, input);
      await own(tenantId, id);
      const redirect = allowedRedirect(port, input.redirectUri, appUrl);
      const { onboardingUrl } = await notFoundAs(port.createQuestionnaire(id, redirect), BankLinkErrors.originatorNotFound);
      await audit.record(undefined, tenantId, { type: 'bank_link.kyb_started', ...auditActor(actor), details: { originatorId: id } });
      return { originatorId: id, onboardingUrl };
    },
  };
}

export type OriginatorsService = ReturnType<typeof createOriginatorsService>;
