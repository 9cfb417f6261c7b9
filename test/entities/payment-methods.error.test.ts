import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/security.js';
import { achBody, BTC_ADDRESS, cryptoBody, entityOf, EVM_ADDRESS, memberWith, wireBody, XRPL_ADDRESS } from './fixtures.js';

let h: Harness;
let entityId: string;
let owner: { userId: string; headers: Record<string, string> };
beforeAll(async () => {
  h = await createHarness();
  ({ entityId, owner } = await entityOf(h));
});
afterAll(async () => h.close());

const url = () => `/entities/${entityId}/manual-payment-methods`;
const post = (payload: unknown, headers = owner.headers) => h.inject({ method: 'POST', url: url(), headers, payload: payload as object });

describe('payment-method validation', () => {
  it('400 with a code: bad IBAN checksum, bad BIC, bad ABA routing, unknown currency; nothing stored', async () => {
    const cases: Array<[unknown, string]> = [
      [wireBody({ iban: 'DE89370400440532013001' }), 'PAYMENT_METHOD_IBAN_INVALID'],
      [wireBody({ iban: 'XX89370400440532013000' }), 'PAYMENT_METHOD_IBAN_INVALID'],
      [wireBody({ bic: 'DEUT1EFF' }), 'PAYMENT_METHOD_BIC_INVALID'],
      [wireBody({ bic: 'DEUTXXFF' }), 'PAYMENT_METHOD_BIC_INVALID'],
      [wireBody({ currency: 'EUX' }), 'PAYMENT_METHOD_CURRENCY_INVALID'],
      [wireBody({ iban: undefined, accountNumber: '12345678', routingNumber: '021000022' }), 'PAYMENT_METHOD_ROUTING_INVALID'],
      [wireBody({ accountNumber: '12345678' }), 'PAYMENT_METHOD_ACCOUNT_INVALID'],
      [wireBody({ iban: undefined }), 'PAYMENT_METHOD_ACCOUNT_INVALID'],
      [{ ...achBody(), details: { ...achBody().details, routingNumber: '123456789' } }, 'PAYMENT_METHOD_ROUTING_INVALID'],
    ];
    for (const [payload, code] of cases) {
      const res = await post(payload);
      expectError(res, 400, code);
    }
    const list = await h.inject({ method: 'GET', url: `${url()}?includeArchived=true`, headers: owner.headers });
    expect(list.json().total).toBe(0);
    expect(h.logs.text()).not.toContain('0532013001');
  });

  it('400 ADDRESS_INVALID for an address that is not valid on its chain', async () => {
    const bad: Array<[string, string]> = [
      ['evm', EVM_ADDRESS.replace('aAeb', 'aaeb')], // broken EIP-55 checksum
      ['evm', XRPL_ADDRESS],
      ['evm', '0x' + '1'.repeat(39)],
      ['xrpl', EVM_ADDRESS],
      ['xrpl', XRPL_ADDRESS.slice(0, -1) + 'X'],
      ['bitcoin', BTC_ADDRESS.slice(0, -1) + 'p'],
      ['bitcoin', 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx'],
    ];
    for (const [chain, address] of bad) {
      expectError(await post(cryptoBody(chain, address)), 400, 'ADDRESS_INVALID');
    }
    expectError(await post({ kind: 'crypto', details: { chain: 'evm', address: EVM_ADDRESS, asset: 'USDC', destinationTag: '5' } }), 400, 'PAYMENT_METHOD_ACCOUNT_INVALID');
    expectError(await post({ kind: 'crypto', details: { chain: 'xrpl', address: XRPL_ADDRESS, asset: 'XRP', destinationTag: '4294967296' } }), 400, 'PAYMENT_METHOD_ACCOUNT_INVALID');
  });

  it('400 VALIDATION_FAILED for malformed bodies', async () => {
    const bodies: unknown[] = [
      {},
      { kind: 'cheque', details: {} },
      { kind: 'bank_wire', details: { ...wireBody().details, extra: 'x' } },
      { kind: 'ach', details: { ...achBody().details, accountNumber: '12ab' } },
      { kind: 'ach', details: { ...achBody().details, currency: 'EUR' } },
      { kind: 'crypto', details: { chain: 'solana', address: EVM_ADDRESS, asset: 'SOL' } },
      { kind: 'crypto', details: { chain: 'evm', address: EVM_ADDRESS, asset: 'usdc' } },
      { kind: 'bank_wire', details: achBody().details },
    ];
    for (const payload of bodies) expectError(await post(payload), 400, 'VALIDATION_FAILED');
  });
});

describe('payment-method reads and updates', () => {
  it('404 for an unknown method, or a method of another entity; 400 for a malformed id', async () => {
    const created = (await post(wireBody())).json();
    const { entityId: otherEntity, owner: otherOwner } = await entityOf(h);
    expectError(await h.inject({ method: 'GET', url: `${url()}/${randomUUID()}`, headers: owner.headers }), 404, 'PAYMENT_METHOD_NOT_FOUND');
    expectError(await h.inject({ method: 'GET', url: `/entities/${otherEntity}/manual-payment-methods/${created.id}`, headers: otherOwner.headers }), 404, 'PAYMENT_METHOD_NOT_FOUND');
    expectError(
      await h.inject({ method: 'PATCH', url: `/entities/${otherEntity}/manual-payment-methods/${created.id}`, headers: otherOwner.headers, payload: { archived: true } }),
      404,
      'PAYMENT_METHOD_NOT_FOUND',
    );
    expectError(await h.inject({ method: 'PATCH', url: `${url()}/${randomUUID()}`, headers: owner.headers, payload: { archived: true } }), 404, 'PAYMENT_METHOD_NOT_FOUND');
    expectError(await h.inject({ method: 'GET', url: `${url()}/nope`, headers: owner.headers }), 400, 'VALIDATION_FAILED');
    const still = await h.inject({ method: 'GET', url: `${url()}/${created.id}`, headers: owner.headers });
    expect(still.json().archived).toBe(false);
  });

  it('PATCH: 400 for an empty body, a change of kind, or bad details; nothing changed', async () => {
    const created = (await post(wireBody())).json();
    const patch = (payload: unknown) => h.inject({ method: 'PATCH', url: `${url()}/${created.id}`, headers: owner.headers, payload: payload as object });
    expectError(await patch({}), 400, 'VALIDATION_FAILED');
    expectError(await patch({ kind: 'ach' }), 400, 'VALIDATION_FAILED');
    expectError(await patch({ details: achBody().details }), 400, 'PAYMENT_METHOD_KIND_MISMATCH');
    expectError(await patch({ details: cryptoBody().details }), 400, 'PAYMENT_METHOD_KIND_MISMATCH');
    expectError(await patch({ details: wireBody({ iban: 'DE00370400440532013000' }).details }), 400, 'PAYMENT_METHOD_IBAN_INVALID');
    const after = await h.inject({ method: 'GET', url: `${url()}/${created.id}`, headers: owner.headers });
    expect(after.json()).toEqual(created);
  });

  it('403 without manage_payment_methods to add or change; view reads masked', async () => {
    const created = (await post(wireBody())).json();
    const viewer = await memberWith(h, entityId, owner.headers, ['view', 'invest']);
    expectError(await post(wireBody(), viewer.headers), 403, 'ENTITY_PERMISSION_REQUIRED');
    expectError(await h.inject({ method: 'PATCH', url: `${url()}/${created.id}`, headers: viewer.headers, payload: { archived: true } }), 403, 'ENTITY_PERMISSION_REQUIRED');
    const read = await h.inject({ method: 'GET', url: `${url()}/${created.id}`, headers: viewer.headers });
    expect(read.json()).toMatchObject({ masked: true, archived: false });
  });
});
