import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { paths } from '../../clients/typescript/src/schema.js';
import { entityPaymentMethods } from '../../src/modules/entities/table.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { outbox } from '../helpers/outbox.js';
import { achBody, BIC, BTC_ADDRESS, cryptoBody, entityOf, EVM_ADDRESS, IBAN, memberWith, wireBody, XRPL_ADDRESS } from './fixtures.js';

let h: Harness;
let entityId: string;
let owner: { userId: string; headers: Record<string, string> };
let viewer: { userId: string; headers: Record<string, string> };
beforeAll(async () => {
  h = await createHarness();
  ({ entityId, owner } = await entityOf(h));
  viewer = await memberWith(h, entityId, owner.headers, ['view']);
});
afterAll(async () => h.close());

type MethodInput = paths['/entities/{id}/manual-payment-methods']['post']['requestBody']['content']['application/json'];
type MethodPatch = NonNullable<paths['/entities/{id}/manual-payment-methods/{methodId}']['patch']['requestBody']>['content']['application/json'];

/** Adds a method as the owner. The fixtures' bodies are untyped (they also build bad ones): cast where used. */
const add = (body: MethodInput) => h.api(owner.headers).POST('/entities/{id}/manual-payment-methods', { params: { path: { id: entityId } }, body });
const getMethod = (headers: Record<string, string>, methodId: string) =>
  h.api(headers).GET('/entities/{id}/manual-payment-methods/{methodId}', { params: { path: { id: entityId, methodId } } });
type ListQuery = NonNullable<paths['/entities/{id}/manual-payment-methods']['get']['parameters']['query']>;
const listMethods = (headers: Record<string, string>, query: ListQuery = {}) =>
  h.api(headers).GET('/entities/{id}/manual-payment-methods', { params: { path: { id: entityId }, query } });
const patchMethod = (methodId: string, body: MethodPatch) =>
  h.api(owner.headers).PATCH('/entities/{id}/manual-payment-methods/{methodId}', { params: { path: { id: entityId, methodId } }, body });

describe('manual payment methods', () => {
  it('a bank wire with an IBAN: sealed at rest, full to manage_payment_methods, masked to view, never logged', async () => {
    const res = await add(wireBody({ iban: 'de89 3704 0044 0532 0130 00', bic: 'deutdeff' }) as MethodInput);
    expect(res.response.status, JSON.stringify(res.error)).toBe(201);
    const method = res.data!;
    expect(method).toMatchObject({
      entityId,
      kind: 'bank_wire',
      label: 'EUR operating',
      currency: 'EUR',
      masked: false,
      archived: false,
      details: { accountHolderName: 'Acme Holdings LLC', iban: IBAN, bic: BIC, bankName: 'Deutsche Bank', bankAddress: 'Taunusanlage 12, Frankfurt' },
    });
    const [row] = await h.database.db.select().from(entityPaymentMethods).where(eq(entityPaymentMethods.id, method.id));
    expect(JSON.stringify(row)).not.toContain('0532013000');
    expect(row!.sensitiveSealed).toEqual(expect.any(String));

    const asViewer = await getMethod(viewer.headers, method.id);
    expect(asViewer.response.status).toBe(200);
    expect(asViewer.data).toMatchObject({ masked: true, details: { iban: '****3000', bic: BIC } });
    expect(JSON.stringify(asViewer.data)).not.toContain('0532013000');
    const list = await listMethods(viewer.headers);
    expect(JSON.stringify(list.data)).not.toContain('0532013000');
    const asKey = await getMethod(h.keyHeaders(), method.id);
    expect(asKey.data!.details.iban).toBe(IBAN);
    expect(h.logs.text()).not.toContain('0532013000');
    const events = await outbox(h, undefined, 'entity.payment_method_added');
    expect(events.some((e) => e.payload.methodId === method.id)).toBe(true);
    expect(JSON.stringify(events)).not.toContain('0532013000');
  });

  it('a bank wire with an account number and ABA routing number', async () => {
    const res = await add({
      kind: 'bank_wire',
      details: { accountHolderName: 'Acme', accountNumber: '987654321', routingNumber: '021000021', bic: 'CHASUS33', bankName: 'Chase', currency: 'USD' },
    });
    expect(res.response.status, JSON.stringify(res.error)).toBe(201);
    expect(res.data!.details).toMatchObject({ accountNumber: '987654321', routingNumber: '021000021', bic: 'CHASUS33' });
    const masked = await getMethod(viewer.headers, res.data!.id);
    expect(masked.data!.details.accountNumber).toBe('****4321');
  });

  it('ACH (USD) and crypto addresses on evm, xrpl and bitcoin', async () => {
    const ach = await add(achBody() as MethodInput);
    expect(ach.response.status, JSON.stringify(ach.error)).toBe(201);
    expect(ach.data).toMatchObject({ kind: 'ach', currency: 'USD', details: { accountType: 'checking', accountNumber: '000123456789' } });
    for (const [chain, address, asset] of [
      ['evm', EVM_ADDRESS, 'USDC'],
      ['evm', EVM_ADDRESS.toLowerCase(), 'ETH'],
      ['xrpl', XRPL_ADDRESS, 'XRP'],
      ['bitcoin', BTC_ADDRESS, 'BTC'],
      ['bitcoin', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', 'BTC'],
    ] as const) {
      const res = await add(cryptoBody(chain, address, asset) as MethodInput);
      expect(res.response.status, `${chain} ${address}: ${JSON.stringify(res.error)}`).toBe(201);
      expect(res.data).toMatchObject({ kind: 'crypto', currency: asset, masked: false, details: { chain, address, asset } });
    }
    const tagged = await add({ kind: 'crypto', details: { chain: 'xrpl', address: XRPL_ADDRESS, asset: 'RLUSD', destinationTag: '12345' } });
    expect(tagged.data!.details.destinationTag).toBe('12345');
  });

  it('PATCH relabels, replaces details, archives; archived methods leave the default list', async () => {
    const created = (await add(wireBody() as MethodInput)).data!;
    h.clock.advance(1000);
    const relabel = await patchMethod(created.id, { label: 'Main EUR' });
    expect(relabel.response.status, JSON.stringify(relabel.error)).toBe(200);
    expect(relabel.data).toMatchObject({ label: 'Main EUR', details: { iban: IBAN } });
    const replaced = await patchMethod(created.id, {
      details: { ...wireBody().details, iban: 'GB82WEST12345698765432', bic: 'NWBKGB2L', currency: 'GBP' },
    });
    expect(replaced.response.status, JSON.stringify(replaced.error)).toBe(200);
    expect(replaced.data).toMatchObject({ currency: 'GBP', details: { iban: 'GB82WEST12345698765432' } });
    expect((await getMethod(viewer.headers, created.id)).data!.details.iban).toBe('****5432');

    const archived = await patchMethod(created.id, { archived: true });
    expect(archived.data!.archived).toBe(true);
    const active = await listMethods(owner.headers, { limit: 100 });
    expect(active.data!.data.some((m) => m.id === created.id)).toBe(false);
    const all = await listMethods(owner.headers, { includeArchived: true, limit: 100 });
    expect(all.data!.data.find((m) => m.id === created.id)).toMatchObject({ archived: true, label: 'Main EUR' });
    expect(all.data!.total).toBe(active.data!.total + 1);
    const updates = (await outbox(h, undefined, 'entity.payment_method_updated')).filter((e) => e.payload.methodId === created.id);
    expect(updates.map((e) => e.payload.changed)).toEqual([['label'], ['details'], ['archived']]);
  });

  it('the list pages', async () => {
    const page = await listMethods(viewer.headers, { limit: 2, offset: 1 });
    expect(page.response.status).toBe(200);
    expect(page.data!.data).toHaveLength(2);
    expect(page.data!.total).toBeGreaterThan(3);
  });
});
