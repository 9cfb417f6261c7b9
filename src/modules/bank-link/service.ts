import { auditActor } from '../../platform/audit/actor.js';
import type { Actor } from '../../platform/audit/actor.js';
import { newId, type Clock } from '../../platform/clock.js';
import type { SecretBox } from '../../platform/crypto/secrets.js';
import type { RunInTx } from '../../platform/db/tx.js';
import { appendEventStatement } from '../../platform/events/outbox.js';
import { writeTogether } from '../../platform/db/write-together.js';
import type { CallContext } from '../../platform/http/context.js';
import { matchRedirect } from '../../platform/http/redirect-allow.js';
import { notFoundAs, ProviderError } from '../../platform/providers/errors.js';
import type { BankLinkClient } from '../../providers/bank-link/port.js';
import type { AuditService } from '../audit/service.js';
import { BankLinkErrors } from './errors.js';
import type { BankLinkProvider } from './provider.js';
import type { BankLinkRepo } from './repo.js';
import type { BankLinkItemDto, LinkTokenDto, OriginatorDto } from './schemas.js';
import type { BankLinkItemRow } from './table.js';

/** What a route knows of the tenant besides the call context: its name (the Link page shows it) and its app URL. */
export interface TenantFacts {
  name: string;
  /** The tenant's app URL: admitted as a return URL when the allow-list is empty. */
  appUrl?: string;
}

/**
 * Whose bank accounts a call is about: a user's own (any bearer token, an admin's too), or,
 * with an API key, the tenant's own funding accounts (null). bank-link's routes name no
 * user, so an API key acts for the tenant rather than for a user it would name.
 */
export const ownerOf = (ctx: CallContext): string | null => (ctx.caller.kind === 'user' ? ctx.userId! : null);

/** The return URL admitted by the tenant's allow-list (or, with none, its app URL); else 400. */
export function allowedRedirect(port: BankLinkClient, requested: string, appUrl: string | undefined): string {
  const allow = port.redirectAllow.length > 0 ? port.redirectAllow : appUrl ? [appUrl] : [];
  const target = matchRedirect(requested, allow);
  if (!target) throw BankLinkErrors.redirectNotAllowed();
  return target;
}

export { auditActor };

export const accessTokenContext = (tenantId: string, itemId: string) => `bank-link-item:${tenantId}:${itemId}`;

export function toItemDto(row: BankLinkItemRow): BankLinkItemDto {
  return {
    itemId: row.id,
    institutionId: row.institutionId,
    institutionName: row.institutionName,
    status: row.status,
    errorCode: row.errorCode,
    accounts: row.accounts.map((a) => ({ accountId: a.accountId, name: a.name, mask: a.mask, type: a.type, subtype: a.subtype })),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/**
 * Bank-account linking: a link token for the hosted Link page, the public token exchanged
 * for an item whose access token is sealed and never answered, the owner's items, unlinking.
 */
export function createBankLinkService(deps: {
  repo: BankLinkRepo;
  tx: RunInTx;
  clock: Clock;
  secrets: SecretBox;
  provider: BankLinkProvider;
  audit: AuditService;
}) {
  const { repo, tx, clock, secrets, provider, audit } = deps;

  return {
    /** A link token for the caller's accounts (an API key: the tenant's own funding accounts). */
    async linkToken(ctx: CallContext, tenant: TenantFacts, redirectUrl: string): Promise<LinkTokenDto> {
      const owner = ownerOf(ctx);
      const port = await provider.client(ctx.tenantId);
      const target = allowedRedirect(port, redirectUrl, tenant.appUrl);
      const token = await port.createLinkToken({ clientName: tenant.name.slice(0, 30), clientUserId: owner ?? `tenant:${ctx.tenantId}`, completionRedirectUri: target });
      return { linkToken: token.linkToken, expiration: new Date(token.expiration).toISOString(), linkUrl: token.hostedLinkUrl };
    },

    async exchange(ctx: CallContext, publicToken: string): Promise<BankLinkItemDto> {
      const owner = { tenantId: ctx.tenantId, userId: ownerOf(ctx) };
      const actor: Actor = ctx.actor;
      const port = await provider.client(ctx.tenantId);
      const exchanged = await notFoundAs(port.exchangePublicToken(publicToken), BankLinkErrors.publicTokenInvalid);
      let accounts;
      try {
        // An access token just made that the provider does not know: the exchange gave nothing usable.
        accounts = await notFoundAs(port.getAccounts(exchanged.accessToken), BankLinkErrors.publicTokenInvalid);
      } catch (error) {
        // Without its accounts the item is of no use: give it back rather than keep a token we cannot show.
        await port.removeItem(exchanged.accessToken).catch(() => undefined);
        throw error;
      }
      const now = clock.now();
      const id = newId();
      return tx(async (db) => {
        if (await repo.findItemByProviderId(owner.tenantId, exchanged.itemId, db)) throw BankLinkErrors.itemAlreadyLinked();
        const row = await repo.insertItem(
          owner.tenantId,
          {
            id,
            userId: owner.userId,
            providerItemId: exchanged.itemId,
            accessTokenSealed: secrets.encrypt(exchanged.accessToken, accessTokenContext(owner.tenantId, id)),
            institutionId: accounts.institutionId,
            institutionName: accounts.institutionName,
            accounts: accounts.accounts,
            status: accounts.errorCode === 'ITEM_LOGIN_REQUIRED' ? 'login_required' : 'active',
            errorCode: accounts.errorCode,
            createdAt: now,
            updatedAt: now,
          },
          db,
        );
        const payload = { itemId: id, userId: owner.userId, institutionId: row.institutionId, accounts: row.accounts.length };
        await writeTogether(db, [appendEventStatement(db, owner.tenantId, 'bank_link.item_linked', payload), audit.statement(owner.tenantId, { type: 'bank_link.item_linked', ...auditActor(actor), subjectUserId: owner.userId, details: payload })]);
        return toItemDto(row);
      });
    },

    async listItems(ctx: CallContext): Promise<{ total: number; data: BankLinkItemDto[] }> {
      const rows = await repo.listItems(ctx.tenantId, ownerOf(ctx));
      return { total: rows.length, data: rows.map(toItemDto) };
    },

    /** Removes the item at the provider, then here. Another owner's item is "not found" (404, as no item). */
    async removeItem(ctx: CallContext, itemId: string): Promise<{ itemId: string; removed: true }> {
      const owner = { tenantId: ctx.tenantId, userId: ownerOf(ctx) };
      const actor: Actor = ctx.actor;
      const row = await repo.findItem(owner.tenantId, itemId);
      if (!row || row.userId !== owner.userId) throw BankLinkErrors.itemNotFound();
      const port = await provider.client(owner.tenantId);
      const accessToken = await secrets.decrypt(row.accessTokenSealed, accessTokenContext(owner.tenantId, row.id));
      try {
        await port.removeItem(accessToken);
      } catch (error) {
        // Already gone at the provider: unlink here too.
        if (!(error instanceof ProviderError && error.reason === 'not_found')) throw error;
      }
      await tx(async (db) => {
        if (!(await repo.deleteItem(owner.tenantId, itemId, db))) throw BankLinkErrors.itemNotFound();
        const payload = { itemId, userId: owner.userId };
        await writeTogether(db, [appendEventStatement(db, owner.tenantId, 'bank_link.item_removed', payload), audit.statement(owner.tenantId, { type: 'bank_link.item_removed', ...auditActor(actor), subjectUserId: owner.userId, details: payload })]);
      });
      return { itemId, removed: true };
    },

    /** The tenant's own originator with its live diligence status; 404 until there is one. */
    async tenantOriginator(tenantId: string): Promise<OriginatorDto> {
      const port = await provider.client(tenantId);
      const id = port.ownOriginator;
      if (!id) throw BankLinkErrors.originatorNotFound();
      const detail = await notFoundAs(port.getOriginator(id), BankLinkErrors.originatorNotFound);
      await repo.updateOriginator(tenantId, id, { diligenceStatus: detail.diligenceStatus, companyName: detail.companyName, updatedAt: clock.now() });
      return { id: detail.clientId, companyName: detail.companyName, diligenceStatus: detail.diligenceStatus };
    },
  };
}

export type BankLinkService = ReturnType<typeof createBankLinkService>;
