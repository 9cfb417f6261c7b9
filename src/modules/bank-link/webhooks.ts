import type { Clock } from '../../platform/clock.js';
import type { DbOrTx } from '../../platform/db/client.js';
import { appendEvent } from '../../platform/events/outbox.js';
import type { InboundWebhook } from '../../platform/providers/define.js';
import { ProviderError } from '../../platform/providers/errors.js';
import type { Providers } from '../../platform/providers/service.js';
import { BankLinkErrors } from './errors.js';
import { BANK_LINK_KIND, BANK_LINK_PROVIDER, type BankLinkProvider } from './provider.js';
import type { BankLinkRepo } from './repo.js';
import type { BankLinkItemStatus } from './table.js';
import type { DiligenceStatus } from '../../providers/bank-link/port.js';

export interface WebhookBody {
  webhook_type: string;
  webhook_code: string;
  item_id?: string;
  error?: { error_code?: string } | null;
  originator_client_id?: string;
  [key: string]: unknown;
}

/** What an item webhook means for the item; undefined: nothing to do. */
function itemChange(body: WebhookBody): { status?: BankLinkItemStatus; errorCode: string | null } | undefined {
  switch (body.webhook_code) {
    case 'ERROR': {
      const code = typeof body.error?.error_code === 'string' ? body.error.error_code : 'UNKNOWN';
      return { status: code === 'ITEM_LOGIN_REQUIRED' ? 'login_required' : undefined, errorCode: code };
    }
    case 'LOGIN_REPAIRED':
      return { status: 'active', errorCode: null };
    case 'PENDING_EXPIRATION':
    case 'PENDING_DISCONNECT':
      return { status: 'pending_expiration', errorCode: null };
    case 'USER_PERMISSION_REVOKED':
    case 'USER_ACCOUNT_REVOKED':
      return { status: 'revoked', errorCode: null };
    default:
      return undefined;
  }
}

/**
 * The provider's webhooks: verified by the provider's definition (an ES256 JWT over the
 * body's SHA-256, its key kept per tenant per settings version), applied once per delivery
 * (the platform's inbound_webhooks), and idempotent besides: states are compared before an
 * update, so a replay changes nothing and emits nothing.
 */
export function createBankLinkWebhooks(deps: { repo: BankLinkRepo; clock: Clock; providers: Providers; provider: BankLinkProvider }) {
  const { repo, clock, providers, provider } = deps;

  /**
   * What an originator webhook asks for, read before the delivery's transaction: the webhook is
   * a hint and the status is read back from the provider (no transaction is held open across
   * that call). Unreachable: 503, and the provider delivers the webhook again later (the
   * delivery is not recorded as applied). Unknown here or there: nothing to do.
   */
  async function originatorDetail(tenantId: string, body: WebhookBody): Promise<{ id: string; diligenceStatus: DiligenceStatus } | undefined> {
    if (body.webhook_type !== 'TRANSFER' || body.webhook_code !== 'ORIGINATOR_DILIGENCE_STATUS_UPDATED' || typeof body.originator_client_id !== 'string') return undefined;
    const id = body.originator_client_id;
    if (!(await repo.findOriginator(tenantId, id))) return undefined;
    const port = await provider.client(tenantId);
    const detail = await port.getOriginator(id).catch((error: unknown) => {
      if (error instanceof ProviderError && error.reason === 'not_found') return undefined;
      throw error;
    });
    return detail ? { id, diligenceStatus: detail.diligenceStatus } : undefined;
  }

  /** Applies a delivery in its transaction `db` (an originator's, with what the provider answered). */
  async function apply(db: DbOrTx, tenantId: string, body: WebhookBody, originator: { id: string; diligenceStatus: DiligenceStatus } | undefined): Promise<void> {
    if (body.webhook_type === 'ITEM' && typeof body.item_id === 'string') {
      const change = itemChange(body);
      if (!change) return;
      const item = await repo.findItemByProviderId(tenantId, body.item_id, db, true);
      if (!item) return;
      const status = change.status ?? item.status;
      if (status === item.status && change.errorCode === item.errorCode) return;
      await repo.updateItem(tenantId, item.id, { status, errorCode: change.errorCode, updatedAt: clock.now() }, db);
      await appendEvent(db, tenantId, 'bank_link.item_updated', { itemId: item.id, userId: item.userId, status, errorCode: change.errorCode, webhookCode: body.webhook_code });
      return;
    }
    if (originator) {
      const current = await repo.findOriginator(tenantId, originator.id, db);
      if (!current || current.diligenceStatus === originator.diligenceStatus) return;
      await repo.updateOriginator(tenantId, originator.id, { diligenceStatus: originator.diligenceStatus, updatedAt: clock.now() }, db);
      await appendEvent(db, tenantId, 'bank_link.originator_updated', { originatorId: originator.id, diligenceStatus: originator.diligenceStatus });
    }
  }

  return {
    /**
     * Throws 401 WEBHOOK_SIGNATURE_INVALID unless the delivery is the provider's for this
     * tenant: a tenant without bank-link settings (or unknown) is refused before anything is
     * made for it, and so is one on the sandbox while sandboxes are off.
     */
    async verify(request: InboundWebhook): Promise<void> {
      if (!(await provider.configured(request.tenantId))) throw BankLinkErrors.webhookUnauthorized('no bank-link provider for this tenant');
      try {
        await providers.verifyWebhook(request.tenantId, BANK_LINK_KIND, request, BANK_LINK_PROVIDER);
      } catch (error) {
        if (error instanceof ProviderError && error.reason === 'not_configured') throw BankLinkErrors.webhookUnauthorized('no bank-link provider for this tenant');
        throw error;
      }
    },

    /** Applies a verified webhook once. Unknown items, originators and codes are acknowledged and ignored. */
    async handle(request: InboundWebhook, body: WebhookBody): Promise<void> {
      const originator = await originatorDetail(request.tenantId, body);
      await providers.once(request.tenantId, BANK_LINK_KIND, body, request, (db) => apply(db, request.tenantId, body, originator), BANK_LINK_PROVIDER);
    },
  };
}

export type BankLinkWebhooks = ReturnType<typeof createBankLinkWebhooks>;
