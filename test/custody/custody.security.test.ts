import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness, type TestTenant } from '../helpers/harness.js';
import { expectError, routeCases } from '../helpers/security.js';
import { createVault } from './helpers.js';

let h: Harness;
let userId: string;
let vault: Awaited<ReturnType<typeof createVault>>;
let other: TestTenant;
let foreignVault: { id: string; walletId: string };
const DEST = '0x000000000000000000000000000000000000dEaD';

beforeAll(async () => {
  h = await createHarness({ listen: true });
  userId = await h.createUser();
  vault = await createVault(h, userId);
  other = await h.newTenant();
  const foreignUser = await h.createUser(other);
  const res = await h.inject({ method: 'POST', url: '/evm-vaults', headers: h.keyHeaders(other), payload: { userId: foreignUser } });
  foreignVault = { id: res.json().id, walletId: res.json().wallets[0].walletId };
});
afterAll(async () => h.close());

const both = { apiKey: true, bearer: 'user' } as const;
const walletUrl = () => `/custody-a/vaults/${vault.id}/wallets/${vault.wallets[0]!.walletId}`;
const foreignWalletUrl = () => `/custody-a/vaults/${foreignVault.id}/wallets/${foreignVault.walletId}`;
const transferPayload = () => ({ destinationAddress: DEST, symbol: 'ETH', qty: '0.1' });
const ZERO = '00000000-0000-4000-8000-000000000000';

routeCases(() => h, 'POST /evm-vaults', { url: () => '/evm-vaults', payload: () => ({ userId }), accepts: both });
routeCases(() => h, 'GET /evm-vaults', { url: () => `/evm-vaults?id=${vault.id}`, accepts: both });
routeCases(() => h, 'POST /custody-a/vaults/{vaultId}/wallets/{walletId}/transactions/transfer', {
  url: () => `${walletUrl()}/transactions/transfer`,
  payload: transferPayload,
  accepts: both,
  foreign: () => `${foreignWalletUrl()}/transactions/transfer`,
});
routeCases(() => h, 'PUT /custody-a/vaults/{vaultId}/wallets/{walletId}', {
  url: walletUrl,
  payload: () => ({ name: 'renamed' }),
  accepts: both,
  foreign: foreignWalletUrl,
});
routeCases(() => h, 'GET /custody-a/vaults/{vaultId}/wallets/{walletId}/transactions/{transactionId}', {
  url: () => `${walletUrl()}/transactions/${ZERO}`,
  accepts: both,
  foreign: () => `${foreignWalletUrl()}/transactions/${ZERO}`,
});
routeCases(() => h, 'POST /sandbox/custody-a/vaults/{vaultId}/fund', {
  url: () => `/sandbox/custody-a/vaults/${vault.id}/fund`,
  payload: () => ({ symbol: 'ETH', qty: '0.01' }),
  accepts: both,
  foreign: () => `/sandbox/custody-a/vaults/${foreignVault.id}/fund`,
});
routeCases(() => h, 'POST /non-custodial-evm/transfers', {
  url: () => '/non-custodial-evm/transfers',
  payload: () => ({ amount: '0.1', assetType: 'ETH', sourceId: vault.wallets[0]!.walletId, sourceType: 'WALLET', destinationId: DEST, destinationType: 'ADDRESS', idempotentId: 'sec-1', provider: 'custody-a' }),
  accepts: { bearer: 'user' },
});
routeCases(() => h, 'GET /non-custodial-evm/transfers', { url: () => '/non-custodial-evm/transfers', accepts: { bearer: 'user' } });
routeCases(() => h, 'GET /non-custodial-evm/transfers/{id}', {
  url: () => `/non-custodial-evm/transfers/${ZERO}`,
  accepts: both,
  foreign: async () => {
    const foreignUser = await h.createUser(other);
    const res = await h.inject({ method: 'POST', url: '/evm-vaults', headers: h.keyHeaders(other), payload: { userId: foreignUser } });
    const { id } = await (async () => {
      const t = await h.inject({
        method: 'POST',
        url: '/non-custodial-evm/transfers',
        headers: h.bearerHeaders(await h.tokenFor(foreignUser, other), other),
        payload: { amount: '0.1', assetType: 'ETH', sourceId: res.json().wallets[0].walletId, sourceType: 'WALLET', destinationId: DEST, destinationType: 'ADDRESS', idempotentId: 'f-1', provider: 'custody-a' },
      });
      return t.json() as { id: string };
    })();
    return `/non-custodial-evm/transfers/${id}`;
  },
});

describe('ownership', () => {
  it("another user's vault and wallets are 404 to a user, visible to the API key", async () => {
    const stranger = await h.tokenFor(await h.createUser());
    expectError(await h.inject({ method: 'GET', url: `/evm-vaults?id=${vault.id}`, headers: h.bearerHeaders(stranger) }), 404, 'VAULT_NOT_FOUND');
    expectError(await h.inject({ method: 'GET', url: `/evm-vaults?address=${vault.address}`, headers: h.bearerHeaders(stranger) }), 404, 'VAULT_NOT_FOUND');
    expectError(
      await h.inject({ method: 'POST', url: `${walletUrl()}/transactions/transfer`, headers: h.bearerHeaders(stranger), payload: transferPayload() }),
      404,
      'VAULT_NOT_FOUND',
    );
    expectError(await h.inject({ method: 'PUT', url: walletUrl(), headers: h.bearerHeaders(stranger), payload: { name: 'mine now' } }), 404, 'VAULT_NOT_FOUND');
    expect((await h.inject({ method: 'GET', url: `/evm-vaults?id=${vault.id}`, headers: h.keyHeaders() })).statusCode).toBe(200);
  });

  it("another tenant's vault is 404, by id and by address", async () => {
    expectError(await h.inject({ method: 'GET', url: `/evm-vaults?id=${foreignVault.id}`, headers: h.keyHeaders() }), 404, 'VAULT_NOT_FOUND');
  });

  it("a user naming another user's vault owner is 404 USER_NOT_FOUND (the own-record rule); the source of a transfer must be its own wallet", async () => {
    const token = await h.tokenFor(await h.createUser());
    expectError(await h.inject({ method: 'POST', url: '/evm-vaults', headers: h.bearerHeaders(token), payload: { userId } }), 404, 'USER_NOT_FOUND');
    const res = await h.inject({
      method: 'POST',
      url: '/non-custodial-evm/transfers',
      headers: h.bearerHeaders(token),
      payload: { amount: '0.1', assetType: 'ETH', sourceId: vault.wallets[0]!.walletId, sourceType: 'WALLET', destinationId: DEST, destinationType: 'ADDRESS', idempotentId: 'steal', provider: 'custody-a' },
    });
    expectError(res, 400, 'TRANSFER_SOURCE_INVALID');
  });

  it('webhooks: a bad or missing signature is 401 and changes nothing', async () => {
    const body = JSON.stringify({ id: 'x', type: 'transfer.status_changed', data: { transferId: ZERO, status: 'COMPLETED' } });
    const url = `/custody-a/webhooks/${h.tenant.tenantId}`;
    const now = String(Math.floor(h.clock.now().getTime() / 1000));
    expectError(await h.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: body }), 401, 'WEBHOOK_SIGNATURE_INVALID');
    const forged = await h.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json', 'x-custody-timestamp': now, 'x-custody-signature': Buffer.alloc(70, 1).toString('base64') },
      payload: body,
    });
    expectError(forged, 401, 'WEBHOOK_SIGNATURE_INVALID');
  });
});
