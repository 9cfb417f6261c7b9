import { auditActor } from '../../platform/audit/actor.js';
import type { Actor } from '../../platform/audit/actor.js';
import { newId, type Clock } from '../../platform/clock.js';
import type { SecretBox } from '../../platform/crypto/secrets.js';
import type { RunInTx } from '../../platform/db/tx.js';
import { appendEvent } from '../../platform/events/outbox.js';
import { BankLinkProviderError, type BankLinkPort } from '../../providers/bank-link/port.js';
import type { AuditService } from '../audit/service.js';
import { matchRedirect } from '../../platform/http/redirect-allow.js';
import { BankLinkErrors, fromProviderError, viaProvider } from './errors.js';
import type { BankLinkRepo } from './repo.js';
import type { BankLinkItemDto, LinkTokenDto, OriginatorDto } from './schemas.js';
import type { BankLinkSettingsService } from './settings.js';
import type { BankLinkItemRow } from './table.js';

/** Whose bank accounts: a user's, or the tenant's own funding accounts (userId null). */
export interface Owner {
  tenantId: string;
  tenantName: string;
  userId: string | null;
  /** The tenant's app URL: admitted as a return URL when the allow-list is empty. */
  appUrl?: string;
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
  port: BankLinkPort;
  settings: BankLinkSettingsService;
  audit: AuditService;
  webhookUrl: (tenantId: string) => string;
}) {
  const { repo, tx, clock, secrets, port, settings, audit } = deps;
  const clientUserId = (owner: Owner) => owner.userId ?? `tenant:${owner.tenantId}`;
  const subject = (owner: Owner) => owner.userId;

  return {
    async linkToken(owner: Owner, redirectUrl: string): Promise<LinkTokenDto> {
      const { row, endpoint } = await settings.resolve(owner.tenantId);
      const allow = row.redirectAllow.length > 0 ? row.redirectAllow : owner.appUrl ? [owner.appUrl] : [];
      const target = matchRedirect(redirectUrl, allow);
      if (!target) throw BankLinkErrors.redirectNotAllowed();
      const token = await viaProvider(() =>
        port.createLinkToken(endpoint, {
          clientName: owner.tenantName.slice(0, 30),
          clientUserId: clientUserId(owner),
          webhook: deps.webhookUrl(owner.tenantId),
          completionRedirectUri: target,
        }),
      );
      return { linkToken: token.linkToken, expiration: new Date(token.expiration).toISOString(), linkUrl: token.hostedLinkUrl };
    },

    async exchange(owner: Owner, publicToken: string, actor: Actor): Promise<BankLinkItemDto> {
      const { endpoint } = await settings.resolve(owner.tenantId);
      const exchanged = await viaProvider(() => port.exchangePublicToken(endpoint, publicToken));
      let accounts;
      try {
        accounts = await viaProvider(() => port.getAccounts(endpoint, exchanged.accessToken));
      } catch (error) {
        // Without its accounts the item is of no use: give it back rather than keep a token we cannot show.
        await port.removeItem(endpoint, exchanged.accessToken).catch(() => undefined);
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
        await appendEvent(db, owner.tenantId, 'bank_link.item_linked', payload);
        await audit.record(db, owner.tenantId, { type: 'bank_link.item_linked', ...auditActor(actor), subjectUserId: subject(owner), details: payload });
        return toItemDto(row);
      });
    },

    async listItems(owner: Owner): Promise<{ total: number; data: BankLinkItemDto[] }> {
      const rows = await repo.listItems(owner.tenantId, owner.userId);
      return { total: rows.length, data: rows.map(toItemDto) };
    },

    /** Removes the item at the provider, then here. Another owner's item is "not found". */
    async removeItem(owner: Owner, itemId: string, actor: Actor): Promise<{ itemId: string; removed: true }> {
      const row = await repo.findItem(owner.tenantId, itemId);
      if (!row || row.userId !== owner.userId) throw BankLinkErrors.itemNotFound();
      const { endpoint } = await settings.resolve(owner.tenantId);
      const accessToken = await secrets.decrypt(row.accessTokenSealed, accessTokenContext(owner.tenantId, row.id));
      try {
        await port.removeItem(endpoint, accessToken);
      } catch (error) {
        // Already gone at the provider: unlink here too.
        if (!(error instanceof BankLinkProviderError && error.errorCode === 'INVALID_ACCESS_TOKEN')) throw fromProviderError(error);
      }
      await tx(async (db) => {
        if (!(await repo.deleteItem(owner.tenantId, itemId, db))) throw BankLinkErrors.itemNotFound();
        const payload = { itemId, userId: owner.userId };
        await appendEvent(db, owner.tenantId, 'bank_link.item_removed', payload);
        await audit.record(db, owner.tenantId, { type: 'bank_link.item_removed', ...auditActor(actor), subjectUserId: subject(owner), details: payload });
      });
      return { itemId, removed: true };
    },

    /** The tenant's own originator with its live diligence status; 404 until there is one. */
    async tenantOriginator(tenantId: string): Promise<OriginatorDto> {
      const { row, endpoint } = await settings.resolve(tenantId);
      if (!row.originatorClientId) throw BankLinkErrors.originatorNotFound();
      const id = row.originatorClientId;
      const detail = await viaProvider(() => port.getOriginator(endpoint, id));
      await repo.updateOriginator(tenantId, id, { diligenceStatus: detail.diligenceStatus, companyName: detail.companyName, updatedAt: clock.now() });
      return { id: detail.clientId, companyName: detail.companyName, diligenceStatus: detail.diligenceStatus };
    },
  };
}

export type BankLinkService = ReturnType<typeof createBankLinkService>;
