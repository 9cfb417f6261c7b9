import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

const url = () => `/entities/${entityId}/manual-payment-methods`;

describe('manual payment methods', () => {
  it('a bank wire with an IBAN: sealed at rest, full to manage_payment_methods, masked to view, never logged', async () => {
    const res = await h.inject({ method: 'POST', url: url(), headers: owner.headers, payload: wireBody({ iban: 'de89 3704 0044 0532 0130 00', bic: 'deutdeff' }) });
    expect(res.statusCode, res.body).toBe(201);
    const method = res.json();
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

    const asViewer = await h.inject({ method: 'GET', url: `${url()}/${method.id}`, headers: viewer.headers });
    expect(asViewer.statusCode).toBe(200);
    expect(asViewer.json()).toMatchObject({ masked: true, details: { iban: '****3000', bic: BIC } });
    expect(asViewer.body).not.toContain('0532013000');
    const list = await h.inject({ method: 'GET', url: url(), headers: viewer.headers });
    expect(list.body).not.toContain('0532013000');
    const asKey = await h.inject({ method: 'GET', url: `${url()}/${method.id}`, headers: h.keyHeaders() });
    expect(asKey.json().details.iban).toBe(IBAN);
    expect(h.logs.text()).not.toContain('0532013000');
    const events = await outbox(h, undefined, 'entity.payment_method_added');
    expect(events.some((e) => e.payload.methodId === method.id)).toBe(true);
    expect(JSON.stringify(events)).not.toContain('0532013000');
  });

  it('a bank wire with an account number and ABA routing number', async () => {
    const res = await h.inject({
      method: 'POST',
      url: url(),
      headers: owner.headers,
      payload: { kind: 'bank_wire', details: { accountHolderName: 'Acme', accountNumber: '987654321', routingNumber: '021000021', bic: 'CHASUS33', bankName: 'Chase', currency: 'USD' } },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().details).toMatchObject({ accountNumber: '987654321', routingNumber: '021000021', bic: 'CHASUS33' });
    const masked = await h.inject({ method: 'GET', url: `${url()}/${res.json().id}`, headers: viewer.headers });
    expect(masked.json().details.accountNumber).toBe('****4321');
  });

  it('ACH (USD) and crypto addresses on evm, xrpl and bitcoin', async () => {
    const ach = await h.inject({ method: 'POST', url: url(), headers: owner.headers, payload: achBody() });
    expect(ach.statusCode, ach.body).toBe(201);
    expect(ach.json()).toMatchObject({ kind: 'ach', currency: 'USD', details: { accountType: 'checking', accountNumber: '000123456789' } });
    for (const [chain, address, asset] of [
      ['evm', EVM_ADDRESS, 'USDC'],
      ['evm', EVM_ADDRESS.toLowerCase(), 'ETH'],
      ['xrpl', XRPL_ADDRESS, 'XRP'],
      ['bitcoin', BTC_ADDRESS, 'BTC'],
      ['bitcoin', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', 'BTC'],
    ] as const) {
      const res = await h.inject({ method: 'POST', url: url(), headers: owner.headers, payload: cryptoBody(chain, address, asset) });
      expect(res.statusCode, `${chain} ${address}: ${res.body}`).toBe(201);
      expect(res.json()).toMatchObject({ kind: 'crypto', currency: asset, masked: false, details: { chain, address, asset } });
    }
    const tagged = await h.inject({ method: 'POST', url: url(), headers: owner.headers, payload: { kind: 'crypto', details: { chain: 'xrpl', address: XRPL_ADDRESS, asset: 'RLUSD', destinationTag: '12345' } } });
    expect(tagged.json().details.destinationTag).toBe('12345');
  });

  it('PATCH relabels, replaces details, archives; archived methods leave the default list', async () => {
    const created = (await h.inject({ method: 'POST', url: url(), headers: owner.headers, payload: wireBody() })).json();
    h.clock.advance(1000);
    const relabel = await h.inject({ method: 'PATCH', url: `${url()}/${created.id}`, headers: owner.headers, payload: { label: 'Main EUR' } });
    expect(relabel.statusCode, relabel.body).toBe(200);
    expect(relabel.json()).toMatchObject({ label: 'Main EUR', details: { iban: IBAN } });
    const replaced = await h.inject({
      method: 'PATCH',
      url: `${url()}/${created.id}`,
      headers: owner.headers,
      payload: { details: { ...wireBody().details, iban: 'GB82WEST12345698765432', bic: 'NWBKGB2L', currency: 'GBP' } },
    });
    expect(replaced.statusCode, replaced.body).toBe(200);
    expect(replaced.json()).toMatchObject({ currency: 'GBP', details: { iban: 'GB82WEST12345698765432' } });
    expect((await h.inject({ method: 'GET', url: `${url()}/${created.id}`, headers: viewer.headers })).json().details.iban).toBe('****5432');

    const archived = await h.inject({ method: 'PATCH', url: `${url()}/${created.id}`, headers: owner.headers, payload: { archived: true } });
    expect(archived.json().archived).toBe(true);
    const active = await h.inject({ method: 'GET', url: `${url()}?limit=100`, headers: owner.headers });
    expect(active.json().data.some((m: { id: string }) => m.id === created.id)).toBe(false);
    const all = await h.inject({ method: 'GET', url: `${url()}?includeArchived=true&limit=100`, headers: owner.headers });
    expect(all.json().data.find((m: { id: string }) => m.id === created.id)).toMatchObject({ archived: true, label: 'Main EUR' });
    expect(all.json().total).toBe(active.json().total + 1);
    const updates = (await outbox(h, undefined, 'entity.payment_method_updated')).filter((e) => e.payload.methodId === created.id);
    expect(updates.map((e) => e.payload.changed)).toEqual([['label'], ['details'], ['archived']]);
  });

  it('the list pages', async () => {
    const page = await h.inject({ method: 'GET', url: `${url()}?limit=2&offset=1`, headers: viewer.headers });
    expect(page.statusCode).toBe(200);
    expect(page.json().data).toHaveLength(2);
    expect(page.json().total).toBeGreaterThan(3);
  });
});
