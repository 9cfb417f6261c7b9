import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { createVault } from './helpers.js';

/**
 * The custody-a sandbox faucet in process: a payment that lands on the chain, and each declared
 * refusal (amount, limit, symbol, unknown or another user's vault, a tenant on a real provider),
 * each changing nothing. The process journey is test/e2e/local-chains-process.test.ts.
 */
let h: Harness;
let userId: string;
let token: string;
let vault: Awaited<ReturnType<typeof createVault>>;
const fund = (vaultId: string, payload: unknown, headers = h.keyHeaders()) =>
  h.inject({ method: 'POST', url: `/sandbox/custody-a/vaults/${vaultId}/fund`, headers, payload: payload as Record<string, unknown> });

beforeAll(async () => {
  h = await createHarness({ listen: true });
  userId = await h.createUser();
  token = await h.tokenFor(userId);
  vault = await createVault(h, userId);
});
afterAll(async () => h.close());

describe('POST /sandbox/custody-a/vaults/{vaultId}/fund', () => {
  it('pays the vault from the local chain: the answer names a hash and the new balance', async () => {
    const res = await fund(vault.id, { symbol: 'ETH', qty: '0.5' }, h.bearerHeaders(token));
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ vaultId: vault.id, symbol: 'ETH', qty: '0.5' });
    expect(body.hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(Number(body.balance)).toBeGreaterThanOrEqual(0.5);
  });

  it('refuses a malformed amount, an amount over the limit and an unknown symbol with 400, paying nothing', async () => {
    const before = (await fund(vault.id, { symbol: 'ETH', qty: '0.000001' })).json().balance as string;
    for (const [payload, code] of [
      [{ symbol: 'ETH', qty: 'abc' }, 'FAUCET_AMOUNT_INVALID'],
      [{ symbol: 'ETH', qty: '-1' }, 'FAUCET_AMOUNT_INVALID'],
      [{ symbol: 'ETH', qty: '11' }, 'FAUCET_LIMIT_EXCEEDED'],
      [{ symbol: 'XRP', qty: '1001' }, 'FAUCET_LIMIT_EXCEEDED'],
    ] as const) {
      const res = await fund(vault.id, payload);
      expect([res.statusCode, res.json().code], JSON.stringify(payload)).toEqual([400, code]);
    }
    const res = await fund(vault.id, { symbol: 'BTC', qty: '1' });
    expect(res.statusCode).toBe(400);
    const after = (await fund(vault.id, { symbol: 'ETH', qty: '0.000001' })).json().balance as string;
    expect(Number(after) - Number(before)).toBeCloseTo(0.000001, 9);
  });

  it("answers 404 for an unknown vault and for another user's vault (a plain user)", async () => {
    const unknown = await fund('00000000-0000-7000-8000-000000000000', { symbol: 'ETH', qty: '1' });
    expect([unknown.statusCode, unknown.json().code]).toEqual([404, 'VAULT_NOT_FOUND']);
    const other = await h.createUser();
    const otherToken = await h.tokenFor(other);
    const foreign = await fund(vault.id, { symbol: 'ETH', qty: '1' }, h.bearerHeaders(otherToken));
    expect([foreign.statusCode, foreign.json().code]).toEqual([404, 'VAULT_NOT_FOUND']);
  });

  it('answers 409 FAUCET_NOT_SANDBOX once the tenant is configured with a real custody-a', async () => {
    const t = await h.newTenant();
    const owner = await h.createUser(t);
    const res = await h.inject({ method: 'POST', url: '/evm-vaults', headers: h.keyHeaders(t), payload: { userId: owner } });
    expect(res.statusCode).toBe(201);
    const { privateKey } = generateKeyPairSync('ed25519');
    await h.container.platform.providerSettings.configure(t.tenantId, 'custody', 'custody-a', {
      baseUrl: 'https://custody.example.com',
      settings: { apiKey: 'real-key' },
      secrets: { signingKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() },
    });
    const refused = await fund(res.json().id, { symbol: 'ETH', qty: '1' }, h.keyHeaders(t));
    expect([refused.statusCode, refused.json().code]).toEqual([409, 'FAUCET_NOT_SANDBOX']);
  });
});
