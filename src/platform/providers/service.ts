import type { Clock } from '../clock.js';
import type { Db, Tx } from '../db/client.js';
import { AppError } from '../http/errors.js';
import { crashPoint } from '../module/in-flight.js';
import { readAfterWrites, selectAfterWrites, writeTemplate, type RowRead } from '../db/write-together.js';
import type { ProviderSettings } from '../provider-settings/settings.js';
import type { AdapterConfig, InboundWebhook, ProviderDefinition, ProviderKind, ProviderPorts } from './define.js';
import { ProviderError } from './errors.js';
import { inboundWebhooks } from './table.js';

const MAX_CACHED = 10_000;

export const WebhookErrors = {
  signatureInvalid: () => new AppError(401, 'WEBHOOK_SIGNATURE_INVALID', 'The webhook signature does not verify'),
  /** For a definition's verify: the provider's signature header is absent or empty. */
  signatureMissing: (header: string) => new AppError(401, 'WEBHOOK_SIGNATURE_MISSING', `The ${header} header is required`),
};

interface Entry {
  stamp: string;
  /** The settings' version it was made at (0: the tenant held none). */
  version: number;
  port: unknown;
  config: AdapterConfig;
}

/** A webhook's claim found the settings moved on from those its signature was checked against: checked again. */
class SettingsMoved extends Error {}

/** How often a delivery is checked again when the settings keep moving under it before giving up (503). */
const MAX_CHECKS = 5;

/** What a webhook's claim statement answers besides its read: the claim and the settings' stamp at that moment. */
const CLAIM_COLUMNS =
  '(SELECT count(*) FROM w0)::int AS claimed__, (SELECT version FROM w1) AS settings_version__, (SELECT base_url IS NULL FROM w1) AS settings_sandbox__';

export interface Providers {
  /** The container hands the provider definitions over once, before the first request. */
  register(definitions: readonly ProviderDefinition<ProviderKind>[]): void;
  definitions(): ProviderDefinition<ProviderKind>[];
  /**
   * The port of the tenant's provider of this kind (`name` picks one where a kind has several):
   * the real one once configured, else its sandbox while sandboxes are on, else
   * `ProviderError.notConfigured`. Built once per tenant per settings version.
   */
  port<K extends ProviderKind>(tenantId: string, kind: K, name?: string): Promise<ProviderPorts[K]>;
  /**
   * Checks an inbound webhook with the provider's own verification (401 WEBHOOK_SIGNATURE_INVALID
   * when it fails) and answers the port it checked it against, for handling the webhook. A port
   * already made for the tenant checks it without reading the settings' stamp: `once` reads the
   * stamp in its claim's statement and, when the settings moved on from that port's, checks the
   * delivery again with the current ones before anything of it commits. With `unknownTenant`, a
   * tenant that holds no settings of the provider is refused with that error before anything is
   * made for it (a sandbox would generate its secrets).
   */
  verifyWebhook<K extends ProviderKind>(tenantId: string, kind: K, request: InboundWebhook, name?: string, options?: { unknownTenant?: () => Error }): Promise<ProviderPorts[K]>;
  /**
   * Applies a verified webhook once per provider event id (the one dedupe table): the claim of
   * the id and `apply`'s writes commit in one transaction (`apply` writes through the `db` it is
   * given), so a delivery is recorded as applied exactly when its effect is. A delivery already
   * applied is 'duplicate' and `apply` is not called; when `apply` throws, or the process dies
   * before the commit, nothing of it stays and the provider's retry is applied. A delivery of
   * the same id arriving meanwhile waits for the first to commit, then is a duplicate. The
   * claim's statement also reads the settings' stamp: when it is not that of the port the
   * delivery was verified with (another instance changed them), the transaction is rolled back
   * and the delivery verified again with the current settings (401 when it fails), then claimed.
   *
   * `first`, the row `apply` reads first (locked, mostly): read in the claim's statement and
   * handed to `apply` (undefined when there is none), one round trip fewer per delivery. The
   * statement claims and locks together; a delivery of an id already claimed still comes out a
   * duplicate, and `apply` is not called.
   */
  once<R = undefined>(
    tenantId: string,
    kind: ProviderKind,
    payload: unknown,
    request: InboundWebhook,
    apply: (db: Tx, first: R | undefined) => Promise<void>,
    name?: string,
    first?: RowRead<R>,
  ): Promise<'applied' | 'duplicate'>;
}

/** Tags a provider error leaving a port with the kind, provider and the definition's code. */
function tagged<T extends object>(port: T, definition: ProviderDefinition<ProviderKind>): T {
  const tag = (error: unknown): never => {
    if (error instanceof ProviderError) {
      error.kind ??= definition.kind;
      error.provider ??= definition.name;
      if (error.reason !== 'not_configured') error.code ??= definition.codes?.[error.reason];
    }
    throw error;
  };
  return new Proxy(port, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        try {
          const result = (value as (...a: unknown[]) => unknown).apply(target, args);
          return result instanceof Promise ? result.catch(tag) : result;
        } catch (error) {
          return tag(error);
        }
      };
    },
  });
}

export function createProviders(deps: { db: Db; clock: Clock; settings: ProviderSettings; sandboxes: () => boolean; publicBaseUrl: () => string }): Providers {
  const { db, clock, settings } = deps;
  // Every webhook's claim, as a template (built once; run prepared once hot): alone, or with the
  // read of the row the webhook is about, in one statement.
  const claimWebhook = writeTemplate<'tenantId' | 'kind' | 'provider' | 'eventId' | 'rawBody' | 'receivedAt'>((q, value) =>
    q
      .insert(inboundWebhooks)
      .values({
        tenantId: value('tenantId'), kind: value('kind'), provider: value('provider'),
        eventId: value('eventId'), rawBody: value('rawBody'), receivedAt: value('receivedAt') as unknown as Date,
      })
      .onConflictDoNothing()
      .returning({ eventId: inboundWebhooks.eventId }),
  );
  const byKind = new Map<string, ProviderDefinition<ProviderKind>[]>();
  const cache = new Map<string, Entry>();

  const definitionOf = (kind: string, name?: string): ProviderDefinition<ProviderKind> => {
    const list = byKind.get(kind) ?? [];
    const found = name === undefined ? list[0] : list.find((d) => d.name === name);
    if (!found) throw new Error(`no provider ${name ?? ''} of kind "${kind}" is registered (container.ts)`);
    if (name === undefined && list.length > 1) throw new Error(`kind "${kind}" has ${list.length} providers: name the one meant`);
    return found;
  };

  const stampOf = (s: { version: number; sandbox: boolean }) => (s.sandbox ? `${s.version}|sandbox|${deps.publicBaseUrl()}` : `${s.version}`);
  const keyOf = (tenantId: string, definition: ProviderDefinition<ProviderKind>) => `${tenantId}/${definition.kind}/${definition.name}`;

  /**
   * The tenant's port of the provider, made again when the settings' stamp moved. `checkedAtClaim`
   * (a webhook's verification, which `once` checks against the stamp at the claim): a port made
   * before serves without reading the stamp.
   */
  async function entry(tenantId: string, definition: ProviderDefinition<ProviderKind>, unknownTenant?: () => Error, checkedAtClaim = false): Promise<Entry> {
    const { kind, name } = definition;
    const key = keyOf(tenantId, definition);
    if (checkedAtClaim) {
      const cached = cache.get(key);
      if (cached && (cached.version > 0 || !unknownTenant)) return cached;
    }
    const before = await settings.stamp(tenantId, kind, name);
    if (unknownTenant && before.version === 0) throw unknownTenant();
    const cached = cache.get(key);
    if (cached && cached.stamp === stampOf(before)) return cached;

    const stored = definition.sandbox?.generate ? await settings.resolve(tenantId, kind, name) : await settings.get(tenantId, kind, name);
    let config: AdapterConfig;
    if (stored.baseUrl === null) {
      if (!definition.sandbox || !deps.sandboxes()) throw ProviderError.notConfigured(kind, name, definition.sandbox ? 'the built-in sandbox is off' : 'it has no sandbox');
      config = { tenantId, sandbox: true, ...(await definition.sandbox.config(tenantId, stored)) };
    } else {
      config = { tenantId, sandbox: false, baseUrl: stored.baseUrl, settings: stored.settings, secrets: stored.secrets };
    }
    const port = tagged(definition.adapter(config) as object, definition);
    const after = await settings.stamp(tenantId, kind, name);
    const made: Entry = { stamp: stampOf(after), version: after.version, port, config };
    cache.delete(key);
    if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
    cache.set(key, made);
    return made;
  }

  return {
    register(definitions) {
      for (const d of definitions) {
        byKind.set(d.kind, [...(byKind.get(d.kind) ?? []).filter((x) => x.name !== d.name), d]);
        settings.declare({
          kind: d.kind,
          provider: d.name,
          description: d.description,
          settings: d.settings,
          secrets: d.secrets,
          ...(d.validate ? { validate: d.validate } : {}),
          ...(d.sandbox?.generate ? { sandbox: { generate: d.sandbox.generate } } : {}),
          ...(d.legacyContext ? { legacyContext: d.legacyContext } : {}),
          // The version column moves on every write; dropping the entry here only frees it sooner.
          changed: async (tenantId) => {
            cache.delete(`${tenantId}/${d.kind}/${d.name}`);
          },
        });
      }
    },
    definitions: () => [...byKind.values()].flat(),
    async port(tenantId, kind, name) {
      return (await entry(tenantId, definitionOf(kind, name))).port as ProviderPorts[typeof kind];
    },
    async verifyWebhook(tenantId, kind, request, name, options) {
      const definition = definitionOf(kind, name);
      return (await verified(definition, tenantId, request, true, options?.unknownTenant)) as ProviderPorts[typeof kind];
    },
    async once(tenantId, kind, payload, request, apply, name, first) {
      const definition = definitionOf(kind, name);
      if (!definition.webhooks) throw new Error(`${kind} ${definition.name} declares no webhooks`);
      const eventId = definition.webhooks.id(payload, request);
      const row = { tenantId, kind, provider: definition.name, eventId };
      // The exact bytes are kept (base64) for audit: what is applied may be cleaned text.
      const rawBody = Buffer.from(request.rawBody, 'utf8').toString('base64');
      const key = keyOf(tenantId, definition);
      for (let check = 1; ; check++) {
        try {
          return await db.transaction(async (tx) => {
            const claim = claimWebhook(tx, { ...row, rawBody, receivedAt: clock.now() });
            const stamp = settings.stampRead(tx, tenantId, kind, definition.name);
            const answer = first ? await readAfterWrites(tx, [claim, stamp], CLAIM_COLUMNS, first.read) : await selectAfterWrites(tx, [claim, stamp], CLAIM_COLUMNS);
            const now = stampOf({ version: Number(answer.settings_version__ ?? 0), sandbox: answer.settings_sandbox__ !== false });
            if (cache.get(key)?.stamp !== now) throw new SettingsMoved();
            if (Number(answer.claimed__) === 0) return 'duplicate' as const;
            await crashPoint(`webhook.${kind}.after-claim`);
            await apply(tx, first ? first.map(answer) : undefined);
            return 'applied' as const;
          });
        } catch (error) {
          if (!(error instanceof SettingsMoved)) throw error;
          if (check >= MAX_CHECKS) throw new ProviderError('unreachable', `${kind} ${definition.name}: its settings kept changing while a webhook was applied`);
          // Rolled back: checked again against the settings as they are now (a port made anew;
          // the old one dropped even when none can be made now, e.g. the provider was removed).
          cache.delete(key);
          await verified(definition, tenantId, request, false);
        }
      }
    },
  };

  /**
   * The provider's own check of a delivery, against the tenant's port (see entry's
   * `checkedAtClaim`); answers the port. A delivery the port made before refuses is checked
   * again against the current settings before it is refused: they may have moved on to the
   * secret it is signed with.
   */
  async function verified(definition: ProviderDefinition<ProviderKind>, tenantId: string, request: InboundWebhook, checkedAtClaim: boolean, unknownTenant?: () => Error): Promise<unknown> {
    const webhooks = definition.webhooks;
    if (!webhooks) throw new Error(`${definition.kind} ${definition.name} declares no webhooks`);
    const check = async (current: boolean) => {
      const { port, config } = await entry(tenantId, definition, unknownTenant, !current);
      return (await webhooks.verify(request, { port: port as never, config })) ? port : undefined;
    };
    const port = (await check(!checkedAtClaim)) ?? (checkedAtClaim ? await check(true) : undefined);
    if (port === undefined) throw WebhookErrors.signatureInvalid();
    return port;
  }
}
