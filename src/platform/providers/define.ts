import type { TSchema } from 'typebox';
import type { ProviderErrorReason } from './errors.js';

/**
 * The port of each kind, by kind name. Empty here: each kind's `src/providers/<kind>/port.ts`
 * adds its own entry (declaration merging), so the platform imports no provider file and
 * `providers.port(tenantId, 'custody')` is typed by the custody port.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface ProviderPorts {}

export type ProviderKind = keyof ProviderPorts & string;

export interface SettingSpec {
  required: boolean;
  description: string;
  /** A setting of the tenant's use of the kind, kept when the provider is configured anew (ProviderSpec.settings). */
  kept?: boolean;
}

/** What an adapter is built from: the tenant's settings, or its sandbox's. */
export interface AdapterConfig {
  tenantId: string;
  baseUrl: string;
  settings: Record<string, string>;
  secrets: Record<string, string>;
  /** True when this is the built-in sandbox. */
  sandbox: boolean;
}

/** An inbound webhook as received: the exact bytes, the headers and the query. */
export interface InboundWebhook {
  tenantId: string;
  rawBody: string;
  headers: Record<string, string | string[] | undefined>;
  query?: Record<string, unknown>;
}

/**
 * A webhook route the provider's protocol fixes (its path under Bastion's base URL, its body),
 * for a provider whose deliveries name the tenant in the body or query rather than the path.
 * The module that owns the kind serves the routes its providers declare; the tenant it reads
 * only selects the credential the signature is checked with.
 */
export interface WebhookRoute {
  /** The route's name, handed back to the port to read the delivery (e.g. 'decision'). */
  name: string;
  /** Path under Bastion's base URL, e.g. /kyc/callback/idv-a/decision. */
  path: string;
  summary: string;
  body: TSchema;
  /** A query schema when the tenant travels in the query. */
  query?: TSchema;
  /** The tenant the delivery names (lower case), from its body or query; undefined when it names none. */
  tenantOf(body: unknown, query: unknown): string | undefined;
}

export interface ProviderDefinition<K extends ProviderKind = ProviderKind> {
  kind: K;
  name: string;
  /** One line for `provider list`. */
  description: string;
  /** Public settings (shown by `provider show`). */
  settings: Record<string, SettingSpec>;
  /** Secrets (`--secret NAME=PATH`), stored sealed, never shown. */
  secrets: Record<string, SettingSpec>;
  /** Checks the settings before they are stored; throws ProviderSettingsError. */
  validate?: (input: { baseUrl: string; settings: Record<string, string>; secrets: Record<string, string> }) => void;
  /**
   * The port speaking the provider's protocol for one tenant. Built once per tenant per
   * settings version and kept: an adapter may cache what it fetched (a webhook key) in itself.
   * Missing or unusable settings are `ProviderError.notConfigured`.
   */
  adapter(config: AdapterConfig): ProviderPorts[K];
  /** The provider's webhooks: verification on the exact bytes, and the provider's event id (dedupe). */
  webhooks?: {
    /** True when the delivery is the provider's (signature, timestamp window, ...). */
    verify(request: InboundWebhook, provider: { port: ProviderPorts[K]; config: AdapterConfig }): boolean | Promise<boolean>;
    /** The delivery's event id; the same on every retry of one event. */
    id(payload: unknown, request: InboundWebhook): string;
    /** Routes fixed by the provider's protocol (when the tenant is not in the path). */
    routes?: readonly WebhookRoute[];
  };
  /** The built-in stand-in, used while the tenant points at no real provider and sandboxes are on. */
  sandbox?: {
    /** The adapter's settings for the sandbox (its base URL and the tenant's sandbox credentials). */
    config(tenantId: string, stored: { settings: Record<string, string>; secrets: Record<string, string> }): Promise<Omit<AdapterConfig, 'tenantId' | 'sandbox'>>;
    /** Credentials the sandbox needs stored per tenant (made on first use and afresh on use-sandbox). */
    generate?: (tenantId: string) => { settings: Record<string, string>; secrets: Record<string, string> };
  };
  /** The module's codes for a reason, kept where the README or tests promise them (not_configured has one code everywhere). */
  codes?: Partial<Record<Exclude<ProviderErrorReason, 'not_configured'>, string>>;
  /** The context a secret was sealed under in the provider's former table. */
  legacyContext?: (tenantId: string, secretName: string) => string;
}

/** Declares a provider, once, in its folder (`src/providers/<kind>/<provider>/index.ts`). */
export function defineProvider<K extends ProviderKind>(definition: ProviderDefinition<K>): ProviderDefinition<K> {
  return definition;
}
