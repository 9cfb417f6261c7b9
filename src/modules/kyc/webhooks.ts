import type { Clock } from '../../platform/clock.js';
import { newId } from '../../platform/clock.js';
import { sha256Hex } from '../../platform/crypto/hash.js';
import type { DbOrTx } from '../../platform/db/client.js';
import type { RunInTx } from '../../platform/db/tx.js';
import { verifyBodySignature, type IdvProviderName } from '../../providers/idv/port.js';
import { KycErrors } from './errors.js';
import type { IdvConfigService } from './idv-config.js';
import type { KycRepo } from './repo.js';
import type { IdvADecision, IdvAEvent, IdvBResult, WebhookAckDto } from './schemas.js';
import { canTransition, type KycStatus } from './state.js';
import type { KycRow, NewKycRow } from './table.js';
import type { KycTransitions } from './transitions.js';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** idv-a echoes "<tenantId>:<kycId>" as vendorData in every webhook. */
export function parseVendorData(vendorData: unknown): { tenantId: string; kycId: string } | undefined {
  if (typeof vendorData !== 'string') return undefined;
  const [tenantId, kycId, extra] = vendorData.split(':');
  if (extra !== undefined || !tenantId || !kycId || !UUID_RE.test(tenantId) || !UUID_RE.test(kycId)) return undefined;
  return { tenantId: tenantId.toLowerCase(), kycId: kycId.toLowerCase() };
}

function countryOf(value: string | null | undefined): string | null {
  return value && /^[A-Za-z]{2}$/.test(value) ? value.toUpperCase() : null;
}

export interface WebhookInput<T> {
  tenantId: string;
  body: T;
  raw: Buffer;
}

/** What a webhook wants done to its record; `undefined` from a decider means "ignore, with this reason". */
type Decision = { to: KycStatus; reason: string | null; changes: Partial<NewKycRow> } | { ignore: string };

/**
 * Inbound provider webhooks. Each is authenticated by an HMAC of its raw body under the
 * tenant's secret (401 and no change otherwise), stored by the digest of its body (a replay
 * changes nothing), and applied only when the transition is possible (a late event never
 * undoes a decision; it is acknowledged and ignored so the provider stops retrying).
 */
export function createKycWebhooks(deps: {
  repo: KycRepo;
  tx: RunInTx;
  clock: Clock;
  idvConfig: IdvConfigService;
  transitions: KycTransitions;
  verifyWallet: (row: KycRow, wallet: NonNullable<IdvBResult['wallet']>) => Promise<boolean>;
}) {
  const { repo, tx, clock, idvConfig, transitions, verifyWallet } = deps;

  async function apply(
    provider: IdvProviderName,
    kind: string,
    input: WebhookInput<unknown>,
    locate: (db: DbOrTx) => Promise<KycRow | undefined>,
    decide: (row: KycRow) => Promise<Decision>,
  ): Promise<WebhookAckDto> {
    const { tenantId, raw } = input;
    return tx(async (db) => {
      const webhookId = newId();
      const fresh = await repo.insertWebhook(
        tenantId,
        { id: webhookId, provider, kind, digest: sha256Hex(raw), kycId: null, outcome: 'received', receivedAt: clock.now(), rawBody: raw.toString('base64') },
        db,
      );
      if (!fresh) return { received: true, applied: false, outcome: 'replay' };
      const found = await locate(db);
      if (!found) {
        await repo.setWebhookOutcome(tenantId, webhookId, null, 'ignored: unknown session', db);
        return { received: true, applied: false, outcome: 'ignored: unknown session' };
      }
      const row = await transitions.expireIfDue(db, tenantId, (await repo.findById(tenantId, found.id, db, true))!);
      const decision = await decide(row);
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
  }

  return {
    /**
     * Checks the signature of a webhook; returns the tenant it belongs to. The tenant named by
     * the webhook (vendorData, or the query) only selects the secret: a forged one fails the check.
     */
    async authenticate(provider: IdvProviderName, tenantId: string | undefined, raw: Buffer, signature: unknown): Promise<string> {
      if (typeof signature !== 'string' || signature === '') throw KycErrors.signatureMissing();
      const secret = tenantId ? await idvConfig.webhookSecret(tenantId, provider) : undefined;
      if (!secret) throw KycErrors.webhookTenantUnknown();
      if (!verifyBodySignature(raw, signature, secret)) throw KycErrors.signatureInvalid();
      return tenantId!;
    },

    async idvAEvent(input: WebhookInput<IdvAEvent>): Promise<WebhookAckDto> {
      const ref = parseVendorData(input.body.vendorData);
      if (!ref || ref.tenantId !== input.tenantId) throw KycErrors.webhookMalformed('vendorData');
      return apply(
        'idv-a',
        'event',
        input,
        async (db) => {
          const row = await repo.findById(input.tenantId, ref.kycId, db);
          return row && row.provider === 'idv-a' && row.providerSessionId === input.body.id ? row : undefined;
        },
        async () => ({ to: input.body.action, reason: null, changes: {} }),
      );
    },

    async idvADecision(input: WebhookInput<IdvADecision>): Promise<WebhookAckDto> {
      const v = input.body.verification;
      const ref = parseVendorData(v.vendorData);
      if (!ref || ref.tenantId !== input.tenantId) throw KycErrors.webhookMalformed('verification.vendorData');
      return apply(
        'idv-a',
        'decision',
        input,
        async (db) => {
          const row = await repo.findById(input.tenantId, ref.kycId, db);
          return row && row.provider === 'idv-a' && row.providerSessionId === v.id ? row : undefined;
        },
        async (row) => ({
          to: v.status,
          reason: v.reason ?? null,
          changes: {
            firstName: v.person?.firstName ?? row.firstName,
            lastName: v.person?.lastName ?? row.lastName,
            dateOfBirth: v.person?.dateOfBirth ?? row.dateOfBirth,
            country: countryOf(v.document?.country) ?? row.country,
            documentType: v.document?.type ?? row.documentType,
          },
        }),
      );
    },

    async idvBResult(input: WebhookInput<IdvBResult>): Promise<WebhookAckDto> {
      const body = input.body;
      if (!UUID_RE.test(body.reference)) throw KycErrors.webhookMalformed('reference');
      return apply(
        'idv-b',
        'result',
        input,
        async (db) => {
          const row = await repo.findById(input.tenantId, body.reference.toLowerCase(), db);
          return row && row.provider === 'idv-b' && row.providerSessionId === body.sessionId ? row : undefined;
        },
        async (row) => {
          let walletVerified = row.walletVerified;
          if (row.flow === 'web3' && body.wallet && !walletVerified) walletVerified = await verifyWallet(row, body.wallet);
          // A wallet-style attempt is approved only with a valid signature of its challenge.
          if (row.flow === 'web3' && body.status === 'approved' && !walletVerified) return { ignore: 'wallet signature invalid' };
          return {
            to: body.status,
            reason: body.reason ?? null,
            changes: {
              walletVerified,
              firstName: body.person?.firstName ?? row.firstName,
              lastName: body.person?.lastName ?? row.lastName,
              dateOfBirth: body.person?.dateOfBirth ?? row.dateOfBirth,
              country: countryOf(body.document?.country) ?? row.country,
              documentType: body.document?.type ?? row.documentType,
            },
          };
        },
      );
    },
  };
}

export type KycWebhooks = ReturnType<typeof createKycWebhooks>;
