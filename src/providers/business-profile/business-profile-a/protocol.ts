import { createHmac } from 'node:crypto';
import { safeEqual } from '../../../platform/crypto/hash.js';
import {
  PROVIDER_STATUSES,
  type BusinessAddress,
  type CreateBusinessRequest,
  type ProviderBusiness,
  type ProviderBusinessStatus,
  type ProviderEvent,
  type ReviewTask,
} from '../port.js';

/** The webhook signature header: HMAC-SHA256 of the raw body under the webhook secret, hex. */
export const SIGNATURE_HEADER = 'x-middesk-signature-256';

export function signBody(raw: string | Buffer, secret: string): string {
  return createHmac('sha256', secret).update(raw).digest('hex');
}

export function verifySignature(raw: Buffer | string, signature: string | string[] | undefined, secret: string): boolean {
  if (typeof signature !== 'string' || signature.length > 200) return false;
  return safeEqual(signature.trim().toLowerCase(), signBody(raw, secret));
}

/** Wire shapes (snake_case, as the provider speaks). */
export interface WireAddress {
  address_line1: string;
  address_line2?: string;
  city: string;
  state?: string;
  postal_code?: string;
  country?: string;
}
export interface WireTask {
  key: string;
  category: string;
  label: string;
  sub_label?: string;
  status: string;
  message: string;
}
export interface WireBusiness {
  object: 'business';
  id: string;
  external_id: string | null;
  name: string;
  status: string;
  tin: { tin: string } | null;
  addresses: WireAddress[];
  people: Array<{ name: string; titles: Array<{ title: string }> }>;
  review: { tasks: WireTask[] } | null;
  created_at: string;
  updated_at: string;
}
export interface WireEvent {
  object: 'event';
  id: string;
  type: string;
  created_at: string;
  data: { object: WireBusiness };
}

export function toWireCreate(request: CreateBusinessRequest): Record<string, unknown> {
  const address = (a: BusinessAddress): WireAddress => ({
    address_line1: a.addressLine1,
    ...(a.addressLine2 ? { address_line2: a.addressLine2 } : {}),
    city: a.city,
    ...(a.state ? { state: a.state } : {}),
    ...(a.postalCode ? { postal_code: a.postalCode } : {}),
    country: a.country,
  });
  return {
    name: request.name,
    tin: { tin: request.tin },
    addresses: request.addresses.map(address),
    people: request.people.map((p) => ({ name: p.name, titles: (p.titles ?? []).map((title) => ({ title })) })),
    external_id: request.externalId,
    ...(request.website ? { website: { url: request.website } } : {}),
  };
}

const TASK_STATUSES = new Set(['success', 'failure', 'warning', 'pending']);
const str = (v: unknown, max = 500): v is string => typeof v === 'string' && v.length > 0 && v.length <= max;

/** Maps a provider status onto the four the port knows (e.g. Middesk's `open`, `in_audit`). */
function status(value: string): ProviderBusinessStatus {
  if ((PROVIDER_STATUSES as readonly string[]).includes(value)) return value as ProviderBusinessStatus;
  return value === 'open' ? 'pending' : 'in_review';
}

/** Reads a business object off the wire; undefined when it lacks what the port needs. */
export function fromWireBusiness(value: unknown): ProviderBusiness | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const b = value as Partial<WireBusiness>;
  if (!str(b.id, 200) || !str(b.status, 50) || !str(b.updated_at, 64)) return undefined;
  const updatedAt = new Date(b.updated_at);
  if (Number.isNaN(updatedAt.getTime())) return undefined;
  const rawTasks = Array.isArray(b.review?.tasks) ? b.review.tasks.slice(0, 50) : [];
  const tasks: ReviewTask[] = rawTasks
    .filter((t): t is WireTask => Boolean(t) && typeof t === 'object' && str(t.key, 100))
    .map((t) => ({
      key: t.key,
      category: str(t.category, 100) ? t.category : t.key,
      label: str(t.label, 200) ? t.label : t.key,
      status: (TASK_STATUSES.has(t.status) ? t.status : 'pending') as ReviewTask['status'],
      message: typeof t.message === 'string' ? t.message.slice(0, 500) : '',
    }));
  return {
    id: b.id,
    externalId: str(b.external_id, 200) ? b.external_id : null,
    status: status(b.status),
    tasks,
    updatedAt,
  };
}

export function parseEvent(raw: Buffer | string): ProviderEvent | 'malformed' {
  let body: unknown;
  try {
    body = JSON.parse(typeof raw === 'string' ? raw : raw.toString('utf8'));
  } catch {
    return 'malformed';
  }
  const e = body as Partial<WireEvent> | null;
  if (!e || typeof e !== 'object' || e.object !== 'event' || !str(e.id, 200) || !str(e.type, 100)) return 'malformed';
  const business = fromWireBusiness(e.data?.object);
  if (!business) return 'malformed';
  return { id: e.id, type: e.type, business };
}
