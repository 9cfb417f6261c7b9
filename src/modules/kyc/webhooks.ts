import type { Clock } from '../../platform/clock.js';
import { newId } from '../../platform/clock.js';
import { sha256Hex } from '../../platform/crypto/hash.js';
import type { RunInTx } from '../../platform/db/tx.js';
import type { IdvAdapter, IdvWebhook } from '../../providers/idv/port.js';
import { KycErrors } from './errors.js';
import type { IdvConfigService } from './idv-config.js';
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
 * authenticated by the adapter's signature check under the tenant's secret (401 and no change
 * otherwise), stored by the digest of its body (a replay changes nothing) with its raw bytes,
 * and applied only when the transition is possible (a late event never undoes a decision; it
 * is acknowledged and ignored so the provider stops retrying).
 */
export function createKycWebhooks(deps: {
  repo: KycRepo;
  tx: RunInTx;
  clock: Clock;
  idvConfig: IdvConfigService;
  transitions: KycTransitions;
  verifyWallet: (row: KycRow, wallet: NonNullable<IdvWebhook['wallet']>) => Promise<boolean>;
}) {
  const { repo, tx, clock, idvConfig, transitions, verifyWallet } = deps;

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

  return {
    /**
     * Checks the signature of a webhook; returns the tenant it belongs to. The tenant named by
     * the webhook (in its body or query) only selects the secret: a forged one fails the check.
     */
    async authenticate(adapter: IdvAdapter, tenantId: string | undefined, raw: Buffer, signature: unknown): Promise<string> {
      if (typeof signature !== 'string' || signature === '') throw KycErrors.signatureMissing();
      const secret = tenantId ? await idvConfig.webhookSecret(tenantId, adapter.provider) : undefined;
      if (!secret) throw KycErrors.webhookTenantUnknown();
      if (!adapter.verifyWebhook(raw, signature, secret)) throw KycErrors.signatureInvalid();
      return tenantId!;
    },

    /** Applies an authenticated webhook of `adapter` to the record it names. */
    async receive(adapter: IdvAdapter, read: IdvWebhook | { malformed: string }, input: { tenantId: string; raw: Buffer }): Promise<WebhookAckDto> {
      if ('malformed' in read) throw KycErrors.webhookMalformed(read.malformed);
      const { tenantId, raw } = input;
      const provider = adapter.provider;
      return tx(async (db) => {
        const webhookId = newId();
        const fresh = await repo.insertWebhook(
          tenantId,
          { id: webhookId, provider, kind: read.kind, digest: sha256Hex(raw), kycId: null, outcome: 'received', receivedAt: clock.now(), rawBody: raw.toString('base64') },
          db,
        );
        if (!fresh) return { received: true, applied: false, outcome: 'replay' };
        const found = await repo.findById(tenantId, read.kycId, db);
        if (!found || found.provider !== provider || found.providerSessionId !== read.sessionId) {
          await repo.setWebhookOutcome(tenantId, webhookId, null, 'ignored: unknown session', db);
          return { received: true, applied: false, outcome: 'ignored: unknown session' };
        }
        const row = await transitions.expireIfDue(db, tenantId, (await repo.findById(tenantId, found.id, db, true))!);
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
        await repo.setWebhookOutcome(tenantId, webhookId, row.id, outcome, db);
        return { received: true, applied: outcome === 'applied', outcome, status };
      });
    },
  };
}

export type KycWebhooks = ReturnType<typeof createKycWebhooks>;
