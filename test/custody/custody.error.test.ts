import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newEd25519KeyPair } from '../../src/providers/custody/custody-a/signing.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/security.js';
import { createVault } from './helpers.js';

let h: Harness;
let userId: string;
let vault: Awaited<ReturnType<typeof createVault>>;
const DEST = '0x000000000000000000000000000000000000dEaD';
beforeAll(async () => {
  h = await createHarness({ listen: true });
  userId = await h.createUser();
  vault = await createVault(h, userId);
});
afterAll(async () => h.close());

const transferUrl = () => `/custody-a/vaults/${vault.id}/wallets/${vault.wallets[0]!.walletId}/transactions/transfer`;
const good = { destinationAddress: DEST, symbol: 'ETH', qty: '0.1' };

describe('custody-a transfer validation (400 with a code, nothing sent)', () => {
  it.each([
    [{ ...good, qty: '-1' }, 'AMOUNT_INVALID'],
    [{ ...good, qty: '0' }, 'AMOUNT_INVALID'],
    [{ ...good, qty: '1e5' }, 'AMOUNT_INVALID'],
    [{ ...good, qty: '0.1234567890123456789' }, 'AMOUNT_INVALID'],
    [{ ...good, destinationAddress: 'rPT1Sjq2YGrBMTttX4GZHjKu9dyfzbpAYe' }, 'ADDRESS_INVALID'],
    [{ ...good, destinationAddress: '0x000000000000000000000000000000000000DeaD' }, 'ADDRESS_INVALID'],
    [{ ...good, symbol: 'DOGE' }, 'SYMBOL_UNKNOWN'],
    [{ ...good, symbol: 'USDC', contract: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48' }, 'CONTRACT_INVALID'],
    [{ ...good, sequence: '5' }, 'SEQUENCE_INVALID'],
  ])('%j -> %s', async (payload, code) => {
    expectError(await h.inject({ method: 'POST', url: transferUrl(), headers: h.keyHeaders(), payload }), 400, code);
  });

  it('the same Idempotency-Key with another body is 409', async () => {
    const headers = { ...h.keyHeaders(), 'idempotency-key': 'k-409' };
    await h.inject({ method: 'POST', url: transferUrl(), headers, payload: good });
    expectError(await h.inject({ method: 'POST', url: transferUrl(), headers, payload: { ...good, qty: '0.2' } }), 409, 'IDEMPOTENCY_KEY_REUSED');
  });

  it('accountSet on an EVM wallet is 400; GET /evm-vaults needs exactly one of id and address', async () => {
    expectError(await h.inject({ method: 'PUT', url: transferUrl().replace('/transactions/transfer', ''), headers: h.keyHeaders(), payload: { name: 'x', accountSet: true } }), 400, 'ACCOUNT_SET_NOT_XRPL');
    expectError(await h.inject({ method: 'GET', url: '/evm-vaults', headers: h.keyHeaders() }), 400, 'VAULT_LOOKUP_INVALID');
    expectError(await h.inject({ method: 'POST', url: '/evm-vaults', headers: h.keyHeaders(), payload: {} }), 400, 'USER_ID_REQUIRED');
  });
});

describe('POST /non-custodial-evm/transfers validation', () => {
  const body = () => ({ amount: '0.1', assetType: 'ETH', sourceId: vault.wallets[0]!.walletId, sourceType: 'WALLET', destinationId: DEST, destinationType: 'ADDRESS', idempotentId: `v-${Math.random()}`, provider: 'custody-a' });
  it.each([
    [{ provider: 'acme' }, 'PROVIDER_UNKNOWN'],
    [{ sourceType: 'ACCOUNT' }, 'ENUM_VALUE_UNKNOWN'],
    [{ destinationType: 'WALLET' }, 'ENUM_VALUE_UNKNOWN'],
    [{ assetType: 'BTC' }, 'ENUM_VALUE_UNKNOWN'],
    [{ amount: '1.5.5' }, 'AMOUNT_INVALID'],
    [{ destinationId: 'not-an-address' }, 'ADDRESS_INVALID'],
    [{ transferAmlQuestionnaire: { destinationType: 'FINANCIAL_INSTITUTION' } }, 'TRAVEL_RULE_DATA_REQUIRED'],
    [{ transferAmlQuestionnaire: { destinationType: 'MOON' } }, 'ENUM_VALUE_UNKNOWN'],
  ])('%j -> %s', async (patch, code) => {
    const token = await h.tokenFor(userId);
    expectError(await h.inject({ method: 'POST', url: '/non-custodial-evm/transfers', headers: h.bearerHeaders(token), payload: { ...body(), ...patch } }), 400, code);
  });

  it('idempotentId is required', async () => {
    const { idempotentId: _omit, ...rest } = body();
    const res = await h.inject({ method: 'POST', url: '/non-custodial-evm/transfers', headers: h.bearerHeaders(await h.tokenFor(userId)), payload: rest });
    expect(res.statusCode).toBe(400);
  });
});

describe('a provider that is down', () => {
  it('answers 503 with Retry-After and records nothing as sent', async () => {
    const tenant = await h.newTenant();
    const owner = await h.createUser(tenant);
    const created = await h.inject({ method: 'POST', url: '/evm-vaults', headers: h.keyHeaders(tenant), payload: { userId: owner } });
    const v = created.json();
    await h.container.platform.providerSettings.configure(tenant.tenantId, 'custody', 'custody-a', {
      baseUrl: 'http://127.0.0.1:9',
      settings: { apiKey: 'k' },
      secrets: { signingKey: newEd25519KeyPair().privateKeyPem },
    });
    const res = await h.inject({ method: 'POST', url: `/custody-a/vaults/${v.id}/wallets/${v.wallets[0].walletId}/transactions/transfer`, headers: { ...h.keyHeaders(tenant), 'idempotency-key': 'down-1' }, payload: good });
    expectError(res, 503, 'CUSTODY_PROVIDER_UNAVAILABLE');
    expect(res.headers['retry-after']).toBe('5');
    const rows = await h.container.db.execute(`select count(*)::int as n from custody_transactions where tenant_id = '${tenant.tenantId}'`);
    expect((rows as unknown as { rows: { n: number }[] }).rows[0]!.n).toBe(0);
    expectError(await h.inject({ method: 'POST', url: '/evm-vaults', headers: h.keyHeaders(tenant), payload: { userId: owner } }), 503, 'CUSTODY_PROVIDER_UNAVAILABLE');
  });
});
