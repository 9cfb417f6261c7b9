import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWithKeyCredential } from '../../src/providers/custody-b/custody-b/credentials.js';
import { createCustodyBClient } from '../../src/providers/custody-b/custody-b/http.js';
import type { CustodyBConnection } from '../../src/providers/custody-b/port.js';
import { ProviderError } from '../../src/platform/providers/errors.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { routeCases } from '../helpers/security.js';
import { createWallet, registeredUser, TYPED_DATA } from '../helpers/custody-b.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ listen: true });
}, 120_000);
afterAll(async () => h?.close());

const address = `0x${'ab'.repeat(20)}`;
const signedChallenge = () => ({
  challengeIdentifier: 'uac_x',
  firstFactor: { kind: 'Key', credentialAssertion: { credId: 'abc', clientData: 'eyJ9', signature: 'c2ln' } },
});
const user = { accepts: { bearer: 'user' } } as const;

routeCases(() => h, 'GET /custody-b/users/auth-token', { url: () => '/custody-b/users/auth-token', ...user });
routeCases(() => h, 'GET /custody-b/users/challenge', { url: () => '/custody-b/users/challenge', ...user });
routeCases(() => h, 'POST /custody-b/users', {
  url: () => '/custody-b/users',
  payload: () => ({ firstFactorCredential: { credentialKind: 'Key', credentialInfo: { credId: 'abc', clientData: 'eyJ9', attestationData: 'eyJ9' } } }),
  ...user,
});
routeCases(() => h, 'GET /custody-b/wallets/challenge', { url: () => '/custody-b/wallets/challenge?network=EthereumSepolia', ...user });
routeCases(() => h, 'POST /custody-b/wallets', { url: () => '/custody-b/wallets', payload: () => ({ network: 'EthereumSepolia', signedChallenge: signedChallenge() }), ...user });
routeCases(() => h, 'GET /custody-b/wallets', { url: () => '/custody-b/wallets', ...user });
routeCases(() => h, 'POST /custody-b/raw-transaction/challenge', { url: () => `/custody-b/raw-transaction/challenge?address=${address}`, payload: () => ({ transaction: '0x02c0' }), ...user });
routeCases(() => h, 'POST /custody-b/raw-transaction/complete', {
  url: () => `/custody-b/raw-transaction/complete?address=${address}`,
  payload: () => ({ transaction: '0x02c0', signedChallenge: signedChallenge() }),
  ...user,
});
routeCases(() => h, 'POST /sandbox/custody-b/fund', { url: () => '/sandbox/custody-b/fund', payload: () => ({ address, amount: '0.01' }), ...user });
routeCases(() => h, 'POST /custody-b/message/challenge', { url: () => '/custody-b/message/challenge', payload: () => ({ address, message: 'hi' }), ...user });
routeCases(() => h, 'POST /custody-b/message', { url: () => '/custody-b/message', payload: () => ({ address, message: 'hi', signedChallenge: signedChallenge() }), ...user });
routeCases(() => h, 'POST /custody-b/message/eip712/challenge', { url: () => '/custody-b/message/eip712/challenge', payload: () => ({ address, typedData: TYPED_DATA }), ...user });
routeCases(() => h, 'POST /custody-b/message/eip712/sign', {
  url: () => '/custody-b/message/eip712/sign',
  payload: () => ({ address, typedData: TYPED_DATA, signedChallenge: signedChallenge() }),
  ...user,
});

describe('custody-b across tenants', () => {
  it("another tenant's user cannot use this tenant's challenge or see its wallets", async () => {
    const alice = await registeredUser(h);
    const wallet = await createWallet(h, alice);
    const challenge = (await h.inject({ method: 'POST', url: '/custody-b/message/challenge', headers: alice.headers, payload: { address: wallet.address, message: 'm' } })).json();
    const other = await h.newTenant();
    const mallory = h.bearerHeaders(await h.tokenFor(await h.createUser(other), other), other);
    const res = await h.inject({ method: 'POST', url: '/custody-b/message', headers: mallory, payload: { address: wallet.address, message: 'm', signedChallenge: { challengeIdentifier: challenge.challengeIdentifier, firstFactor: signWithKeyCredential(challenge.challenge, alice.cred.credId, alice.cred.privateKeyPem) } } });
    expect(res.statusCode).toBe(404);
    expect((await h.inject({ method: 'GET', url: '/custody-b/wallets', headers: mallory })).json()).toEqual({ total: 0, data: [] });
  }, 60_000);
});

describe('the sandbox provider itself', () => {
  const sandbox = () => h.container.sandboxes.custodyB;
  const adapter = (conn: CustodyBConnection) => createCustodyBClient(conn, { now: () => h.clock.now() });
  const refused = async (work: Promise<unknown>, status: number) => {
    const error = await work.then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).status).toBe(status);
  };

  it('checks the service token, and a user action token binds the exact body', async () => {
    const conn: CustodyBConnection = await sandbox().connection(h.tenant.tenantId);
    await refused(adapter({ ...conn, serviceToken: 'svc_wrong' }).delegatedLogin('x@example.com'), 401);
    const alice = await registeredUser(h);
    const username = (await h.container.users.findRow(h.tenant.tenantId, alice.userId))!.email;
    const { token } = await adapter(conn).delegatedLogin(username);
    // A user's token cannot call the service's endpoints.
    const asUser = await fetch(`${conn.baseUrl}/auth/registration/delegated`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'y@example.com', kind: 'EndUser' }),
    });
    expect(asUser.status).toBe(403);
    // A user action for {network: Ethereum} cannot create a wallet on another network.
    const challenge = await adapter(conn).userActionInit(token, { method: 'POST', path: '/wallets', body: { network: 'Ethereum' } });
    const { userAction } = await adapter(conn).userActionSign(token, { challengeIdentifier: challenge.challengeIdentifier, firstFactor: signWithKeyCredential(challenge.challenge, alice.cred.credId, alice.cred.privateKeyPem) });
    await refused(adapter(conn).createWallet(token, userAction, { network: 'Polygon' }), 400);
    // ...and it was spent by the refused attempt.
    await refused(adapter(conn).createWallet(token, userAction, { network: 'Ethereum' }), 401);
    // The service's own key cannot answer the user's challenge.
    const again = await adapter(conn).userActionInit(token, { method: 'POST', path: '/wallets', body: { network: 'Ethereum' } });
    await refused(adapter(conn).userActionSign(token, { challengeIdentifier: again.challengeIdentifier, firstFactor: signWithKeyCredential(again.challenge, conn.serviceCredId, conn.servicePrivateKeyPem) }), 401);
  }, 60_000);

  it('refuses a replayed request nonce and an unknown application id', async () => {
    const conn = await sandbox().connection(h.tenant.tenantId);
    const nonce = Buffer.from(JSON.stringify({ uuid: 'u-1', datetime: h.clock.now().toISOString() })).toString('base64url');
    const call = () =>
      fetch(`${conn.baseUrl}/auth/action/init`, {
        method: 'POST',
        headers: { authorization: `Bearer ${conn.serviceToken}`, 'content-type': 'application/json', 'x-dfns-nonce': nonce },
        body: JSON.stringify({ userActionHttpMethod: 'POST', userActionHttpPath: '/wallets', userActionPayload: '{}' }),
      });
    expect((await call()).status).toBe(200);
    expect((await call()).status).toBe(401);
    const res = await fetch(`${conn.baseUrl}/wallets`, { headers: { authorization: `Bearer ${conn.serviceToken}`, 'x-dfns-appid': 'ap-unknown' } });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: { message: expect.any(String) } });
  });
});
