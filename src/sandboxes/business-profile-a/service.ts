import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { Clock } from '../../platform/clock.js';
import type { DbOrTx } from '../../platform/db/client.js';
import { SIGNATURE_HEADER, signBody, type WireAddress, type WireBusiness, type WireEvent, type WireTask } from '../../providers/business-profile/business-profile-a/protocol.js';
import { businessProfileASandbox, type SandboxBusinessRow } from './table.js';

/** An account of the sandbox: who the presented API key belongs to, and where its webhooks go. */
export interface SandboxAccount {
  accountId: string;
  webhookUrl: string;
  webhookSecret: string;
}

export interface BusinessProfileASandboxOptions {
  db: DbOrTx;
  clock: Clock;
  /** The provider's credential store: the account of an API key, or undefined. */
  lookupAccount(apiKey: string): Promise<SandboxAccount | undefined>;
  /** The account's webhook settings (the sandbox's "dashboard"), by account id. */
  accountById(accountId: string): Promise<SandboxAccount | undefined>;
  fetch?: typeof fetch;
}

export const REVIEW_STATUSES = ['in_review', 'approved', 'rejected'] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

export class SandboxInputError extends Error {}

const MAX_DELIVERIES = 10;
const text = (v: unknown, max: number): string | undefined => (typeof v === 'string' && v.trim().length > 0 && v.length <= max ? v.trim() : undefined);

function tasksFor(status: string): WireTask[] {
  const task = (key: string, category: string, label: string, ok: 'success' | 'failure' | 'warning' | 'pending', message: string): WireTask => ({
    key,
    category,
    label,
    sub_label: ok === 'success' ? 'Verified' : ok === 'failure' ? 'Failed' : 'Pending',
    status: ok,
    message,
  });
  if (status === 'pending') return [];
  const base = (tin: 'success' | 'failure' | 'pending') => [
    task('name', 'name', 'Business Name', 'success', 'The business name was matched to a Secretary of State filing'),
    task('tin', 'tin', 'TIN Match', tin, tin === 'success' ? 'The TIN matches IRS records' : tin === 'failure' ? 'The TIN does not match IRS records' : 'The TIN is being checked'),
    task('address_verification', 'address', 'Office Address', 'success', 'The address was found in an official filing'),
    task('watchlist', 'watchlist', 'Watchlist', 'success', 'No watchlist hits were found'),
  ];
  if (status === 'approved') return base('success');
  if (status === 'rejected') return base('failure');
  return base('pending');
}

function toWire(row: SandboxBusinessRow): WireBusiness {
  return {
    object: 'business',
    id: row.id,
    external_id: row.externalId,
    name: row.name,
    status: row.status,
    tin: { tin: `*****${row.tinLast4}` },
    addresses: row.addresses,
    people: row.people,
    review: { tasks: row.tasks },
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

function parseAddresses(value: unknown): WireAddress[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > 10) throw new SandboxInputError('addresses: one to ten addresses are required');
  return value.map((a: Record<string, unknown>, i) => {
    const line1 = text(a?.address_line1, 200);
    const city = text(a?.city, 100);
    if (!line1 || !city) throw new SandboxInputError(`addresses[${i}]: address_line1 and city are required`);
    const out: WireAddress = { address_line1: line1, city };
    for (const key of ['address_line2', 'state', 'postal_code', 'country'] as const) {
      const v = text(a[key], 100);
      if (v) out[key] = v;
    }
    return out;
  });
}

/**
 * The sandbox's behaviour, with no HTTP: create and read businesses, and (sandbox only) move
 * one to in_review, approved or rejected, which sends the signed `business.updated` webhook.
 */
export function createBusinessProfileASandbox(options: BusinessProfileASandboxOptions) {
  const { db, clock } = options;
  const doFetch = options.fetch ?? fetch;

  async function find(accountId: string, id: string): Promise<SandboxBusinessRow | undefined> {
    const [row] = await db
      .select()
      .from(businessProfileASandbox)
      .where(and(eq(businessProfileASandbox.tenantId, accountId), eq(businessProfileASandbox.id, id)))
      .limit(1);
    return row;
  }

  async function deliver(account: SandboxAccount, row: SandboxBusinessRow, type: string): Promise<string> {
    const event: WireEvent = { object: 'event', id: randomUUID(), type, created_at: clock.now().toISOString(), data: { object: toWire(row) } };
    const raw = JSON.stringify(event);
    let outcome: string;
    try {
      const res = await doFetch(account.webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: signBody(raw, account.webhookSecret), 'x-correlation-id': row.id },
        body: raw,
        redirect: 'error',
        signal: AbortSignal.timeout(10_000),
      });
      await res.arrayBuffer();
      outcome = `${type} ${event.id}: HTTP ${res.status}`;
    } catch (error) {
      outcome = `${type} ${event.id}: failed (${(error as Error).name})`;
    }
    await db
      .update(businessProfileASandbox)
      .set({ deliveries: [...row.deliveries, outcome].slice(-MAX_DELIVERIES) })
      .where(and(eq(businessProfileASandbox.tenantId, account.accountId), eq(businessProfileASandbox.id, row.id)));
    return outcome;
  }

  return {
    lookupAccount: options.lookupAccount,

    /** POST /v1/businesses. A repeated external_id answers the business already created. */
    async create(account: SandboxAccount, body: unknown): Promise<WireBusiness> {
      const b = (body ?? {}) as Record<string, unknown>;
      const name = text(b.name, 300);
      if (!name) throw new SandboxInputError('name is required');
      const tin = text((b.tin as { tin?: unknown } | undefined)?.tin, 20)?.replace(/-/g, '');
      if (!tin || !/^\d{9}$/.test(tin)) throw new SandboxInputError('tin.tin must be nine digits');
      const addresses = parseAddresses(b.addresses);
      const people = Array.isArray(b.people)
        ? b.people.slice(0, 20).flatMap((p: Record<string, unknown>) => {
            const personName = text(p?.name, 200);
            const titles = Array.isArray(p?.titles) ? p.titles.flatMap((t: { title?: unknown }) => (text(t?.title, 100) ? [{ title: text(t.title, 100)! }] : [])) : [];
            return personName ? [{ name: personName, titles }] : [];
          })
        : [];
      const externalId = text(b.external_id, 200) ?? null;
      const website = text((b.website as { url?: unknown } | undefined)?.url, 500) ?? null;
      const now = clock.now();
      const [created] = await db
        .insert(businessProfileASandbox)
        .values({
          tenantId: account.accountId,
          id: randomUUID(),
          externalId,
          name,
          tinLast4: tin.slice(-4),
          addresses,
          people,
          website,
          status: 'pending',
          tasks: [],
          deliveries: [],
          createdAt: now,
          updatedAt: now,
        })
        .onConflictDoNothing()
        .returning();
      if (created) return toWire(created);
      const [existing] = await db
        .select()
        .from(businessProfileASandbox)
        .where(and(eq(businessProfileASandbox.tenantId, account.accountId), eq(businessProfileASandbox.externalId, externalId!)))
        .limit(1);
      return toWire(existing!);
    },

    /** The review page: a business by its (random) id, whichever account holds it. */
    async findAny(id: string): Promise<{ accountId: string; business: WireBusiness } | undefined> {
      const [row] = await db.select().from(businessProfileASandbox).where(eq(businessProfileASandbox.id, id)).limit(1);
      return row && { accountId: row.tenantId, business: toWire(row) };
    },

    async get(account: SandboxAccount, id: string): Promise<WireBusiness | undefined> {
      const row = await find(account.accountId, id);
      return row && toWire(row);
    },

    /** Sandbox only: the review outcome; sends `business.updated` to the account's webhook. */
    async review(accountId: string, id: string, status: ReviewStatus): Promise<{ business: WireBusiness; delivery: string } | undefined> {
      const account = await options.accountById(accountId);
      const row = account && (await find(accountId, id));
      if (!account || !row) return undefined;
      // Strictly later than the last change, so a receiver ordering by updated_at sees it as newer.
      const updatedAt = new Date(Math.max(clock.now().getTime(), row.updatedAt.getTime() + 1));
      const [updated] = await db
        .update(businessProfileASandbox)
        .set({ status, tasks: tasksFor(status), updatedAt })
        .where(and(eq(businessProfileASandbox.tenantId, accountId), eq(businessProfileASandbox.id, id)))
        .returning();
      const delivery = await deliver(account, updated!, 'business.updated');
      return { business: toWire(updated!), delivery };
    },
  };
}

export type BusinessProfileASandbox = ReturnType<typeof createBusinessProfileASandbox>;
