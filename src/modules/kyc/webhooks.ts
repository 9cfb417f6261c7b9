import type { Tx } from '../../platform/db/client.js';
import type { InboundWebhook } from '../../platform/providers/define.js';
import type { Providers } from '../../platform/providers/service.js';
import type { IdvPort, IdvWebhook } from '../../providers/idv/port.js';
import { KycErrors } from './errors.js';
import type { KycRepo } from './repo.js';
import type { WebhookAckDto } from './schemas.js';
import { canTransition, type KycStatus } from './state.js';
import type { KycRow, NewKycRow } from './table.js';
import type { KycTransitions } from './transitions.js';

function countryOf(value: string | null | undefined): string | null {
  return value && /^[A-Za-z]{2}$/.test(value) ? value.toUpperCase() : null;
}

/** What a webhook wants done to its record, or why it is ignored. */
type Decision = { to: KycStatus; reason: string | null; changes: Partial<NewKycRow> } | { ignore: string };

/**
 * Inbound provider webhooks, read by each provider's adapter into one shape. Each is
 * authenticated by the provider's own check under the tenant's secret (401 and no change
 * otherwise), applied once per provider event id (the platform's inbound_webhooks, which also
 * keeps the raw bytes: a retry changes nothing), and applied only when the transition is
 * possible (a late event never undoes a decision; it is acknowledged and ignored so the
 * provider stops retrying).
 */
export function createKycWebhooks(deps: {
  repo: KycRepo;
  providers: Providers;
  transitions: KycTransitions;
  verifyWallet: (row: KycRow, wallet: NonNullable<IdvWebhook['wallet']>) => Promise<boolean>;
}) {
  const { repo, providers, transitions, verifyWallet } = deps;

  /** The rule the module adds to every provider: a wallet-style attempt is approved only with a valid signature of its challenge. */
  async function decide(row: KycRow, webhook: IdvWebhook): Promise<Decision> {
    let walletVerified = row.walletVerified;
    if (row.flow === 'web3' && webhook.wallet && !walletVerified) walletVerified = await verifyWallet(row, webhook.wallet);
    if (row.flow === 'web3' && webhook.status === 'approved' && !walletVerified) return { ignore: 'wallet signature invalid' };
    const { person, document } = webhook;
    return {
      to: webhook.status,
      reason: webhook.reason,
      changes: {
        ...(row.flow === 'web3' ? { walletVerified } : {}),
        firstName: person?.firstName ?? row.firstName,
        lastName: person?.lastName ?? row.lastName,
        dateOfBirth: person?.dateOfBirth ?? row.dateOfBirth,
        country: countryOf(document?.country) ?? row.country,
        documentType: document?.type ?? row.documentType,
      },
    };
  }

  /** Applies a webhook in the common shape to the record it names, in the delivery's transaction. */
  async function apply(tenantId: string, provider: string, read: IdvWebhook, db: Tx, found: KycRow | undefined): Promise<WebhookAckDto> {
    // `found` was read under the lock at once, in the claim's statement (one read, not a read and
    // a locked read again): a record that turns out not to be this session's is only held until
    // the answer.
    if (!found || found.provider !== provider || found.providerSessionId !== read.sessionId) {
      return { received: true, applied: false, outcome: 'ignored: unknown session' };
    }
    const row = await transitions.expireIfDue(db, tenantId, found);
    const decision = await decide(row, read);
    let outcome: string;
    let status = row.status;
    if ('ignore' in decision) outcome = `ignored: ${decision.ignore}`;
    else if (row.status === decision.to) outcome = `ignored: already ${row.status}`;
    else if (!canTransition(row.status, decision.to)) outcome = `ignored: ${row.status} cannot move to ${decision.to}`;
    else {
      const actor = { type: 'provider' as const, id: provider };
      status = (await transitions.move(db, tenantId, row, decision.to, actor, decision.reason, decision.changes)).status;
      outcome = 'applied';
    }
    return { received: true, applied: outcome === 'applied', outcome, status };
  }

  return {
    /**
     * Checks the signature of a webhook with the provider's own check; returns the tenant it
     * belongs to. The tenant named by the webhook (in its body or query) only selects the
     * secret: a forged one fails the check. A tenant that holds no settings for the provider
     * (it never started a session there, or does not exist) is unknown.
     */
    async authenticate(provider: string, tenantId: string | undefined, request: Omit<InboundWebhook, 'tenantId'>): Promise<{ tenantId: string; port: IdvPort }> {
      if (!tenantId) throw KycErrors.webhookTenantUnknown();
      const port = await providers.verifyWebhook(tenantId, 'idv', { tenantId, ...request }, provider, { unknownTenant: KycErrors.webhookTenantUnknown });
      return { tenantId, port };
    },

    /** Applies an authenticated delivery to the route `route` of `provider`, once per provider event id. */
    async receive(provider: string, route: string, body: unknown, request: InboundWebhook, port?: IdvPort): Promise<WebhookAckDto> {
      const { tenantId } = request;
      const read = (port ?? (await providers.port(tenantId, 'idv', provider))).readWebhook(route, body);
      if ('malformed' in read) throw KycErrors.webhookMalformed(read.malformed);
      let ack: WebhookAckDto | undefined;
      const once = await providers.once(
        tenantId,
        'idv',
        body,
        request,
        async (db, found) => {
          ack = await apply(tenantId, provider, read, db, found);
        },
        provider,
        repo.lockedRead(tenantId, read.kycId),
      );
      return once === 'duplicate' ? { received: true, applied: false, outcome: 'replay' } : ack!;
    },
  };
}

export type KycWebhooks = ReturnType<typeof createKycWebhooks>;
