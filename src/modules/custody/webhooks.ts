import type { Clock } from '../../platform/clock.js';
import type { CustodyTransaction, CustodyTransfer } from '../../providers/custody/port.js';
import { verifyWebhook } from '../../providers/custody/custody-a/signing.js';
import { CustodyErrors } from './errors.js';
import type { CustodyAProvider } from './provider.js';
import type { TransactionsService } from './transactions.js';
import type { TransfersService } from './transfers.js';

const WINDOW_SECONDS = 300;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * custody-a's webhooks: the P-256 signature over `${timestamp}.${body}` with the provider's
 * key, a timestamp within five minutes; then the status is applied forward only, so a replay
 * or an out-of-order delivery changes nothing.
 */
export function createCustodyWebhooks(deps: {
  clock: Clock;
  provider: CustodyAProvider;
  findTenant: (id: string) => Promise<unknown>;
  transactions: TransactionsService;
  transfers: TransfersService;
}) {
  return {
    async verify(tenantId: string, raw: string, timestamp: unknown, signature: unknown): Promise<void> {
      if (!UUID_RE.test(tenantId) || typeof timestamp !== 'string' || typeof signature !== 'string' || !/^\d{1,12}$/.test(timestamp)) throw CustodyErrors.webhookSignature();
      if (Math.abs(Math.floor(deps.clock.now().getTime() / 1000) - Number(timestamp)) > WINDOW_SECONDS) throw CustodyErrors.webhookSignature();
      if (!(await deps.findTenant(tenantId))) throw CustodyErrors.webhookSignature();
      const key = await deps.provider.webhookKey(tenantId).catch(() => {
        throw CustodyErrors.providerUnavailable();
      });
      if (!verifyWebhook(key, timestamp, raw, signature)) throw CustodyErrors.webhookSignature();
    },
    /**
     * Applies a verified webhook. One that names a transaction or transfer not recorded here is
     * 503 with Retry-After, so the provider sends it again: its work can finish before the
     * request that started it has stored the provider's answer (the id the webhook names).
     */
    async handle(tenantId: string, body: { type: string; data: unknown }): Promise<void> {
      const data = body.data as Record<string, unknown> | null;
      if (!data || typeof data !== 'object' || typeof data.status !== 'string') return;
      let known = true;
      if (body.type === 'transaction.status_changed' && typeof data.id === 'string') known = await deps.transactions.fromWebhook(tenantId, data as unknown as CustodyTransaction);
      if (body.type === 'transfer.status_changed' && typeof data.transferId === 'string') known = await deps.transfers.fromWebhook(tenantId, data as unknown as CustodyTransfer);
      if (!known) throw CustodyErrors.webhookObjectUnknown();
    },
  };
}

export type CustodyWebhooks = ReturnType<typeof createCustodyWebhooks>;
