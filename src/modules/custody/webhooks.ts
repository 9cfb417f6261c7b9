import type { Providers } from '../../platform/providers/service.js';
import type { CustodyTransaction, CustodyTransfer } from '../../providers/custody/port.js';
import { CustodyErrors } from './errors.js';
import { CUSTODY_A, CUSTODY_KIND } from './provider.js';
import type { TransactionsService } from './transactions.js';
import type { TransfersService } from './transfers.js';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * custody-a's webhooks: verified by the provider's definition (the P-256 signature over
 * `${timestamp}.${body}`, a timestamp within five minutes), applied once per event id (the
 * platform's inbound_webhooks), and then the status is applied forward only, so an
 * out-of-order delivery changes nothing.
 */
export function createCustodyWebhooks(deps: {
  providers: Providers;
  findTenant: (id: string) => Promise<unknown>;
  transactions: TransactionsService;
  transfers: TransfersService;
}) {
  return {
    async verify(tenantId: string, rawBody: string, headers: Record<string, string | string[] | undefined>): Promise<void> {
      if (!UUID_RE.test(tenantId) || !(await deps.findTenant(tenantId))) throw CustodyErrors.webhookSignature();
      await deps.providers.verifyWebhook(tenantId, CUSTODY_KIND, { tenantId, rawBody, headers }, CUSTODY_A);
    },
    /**
     * Applies a verified webhook. One that names a transaction or transfer not recorded here is
     * 503 with Retry-After, so the provider sends it again: its work can finish before the
     * request that started it has stored the provider's answer (the id the webhook names).
     */
    async handle(tenantId: string, body: { type: string; data: unknown }, rawBody: string, headers: Record<string, string | string[] | undefined>): Promise<void> {
      const data = body.data as Record<string, unknown> | null;
      const applies = !!data && typeof data === 'object' && typeof data.status === 'string';
      const transaction = applies && body.type === 'transaction.status_changed' && typeof data.id === 'string' ? (data as unknown as CustodyTransaction) : undefined;
      await deps.providers.once(
        tenantId,
        CUSTODY_KIND,
        body,
        { tenantId, rawBody, headers },
        async (db, row) => {
          if (!data || !applies) return;
          let known = true;
          if (transaction) known = await deps.transactions.fromWebhook(tenantId, transaction, db, row);
          if (body.type === 'transfer.status_changed' && typeof data.transferId === 'string') known = await deps.transfers.fromWebhook(tenantId, data as unknown as CustodyTransfer, db);
          if (!known) throw CustodyErrors.webhookObjectUnknown();
        },
        CUSTODY_A,
        // A transaction's webhook reads its row (locked) in the claim's statement.
        transaction ? deps.transactions.webhookRead(tenantId, transaction.id) : undefined,
      );
    },
  };
}

export type CustodyWebhooks = ReturnType<typeof createCustodyWebhooks>;
