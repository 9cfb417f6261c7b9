import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { expectError, routeCases } from '../helpers/security.js';

let h: Harness;
let userId: string;
beforeAll(async () => {
  h = await createHarness();
  userId = await h.createUser();
});
afterAll(async () => h.close());

const body = () => ({ message: 'example.com wants you to sign in with your Ethereum account', signature: `0x${'ab'.repeat(65)}` });

routeCases(() => h, 'GET /evm-eoas/challenge', { url: () => '/evm-eoas/challenge', accepts: { bearer: 'user' } });
routeCases(() => h, 'POST /evm-eoas', { url: () => '/evm-eoas', payload: body, accepts: { bearer: 'user' } });
routeCases(() => h, 'GET /evm-eoas', { url: () => `/evm-eoas?userId=${userId}`, accepts: { apiKey: true, bearer: 'user' } });

describe('another tenant', () => {
  it("404 for another tenant's user, and its wallets stay unseen", async () => {
    const other = await h.newTenant();
    const foreignUser = await h.createUser(other);
    const token = await h.tokenFor(foreignUser, other);
    // A token of another tenant cannot even ask for a challenge here.
    const refused = await h.inject({ method: 'GET', url: '/evm-eoas/challenge', headers: h.bearerHeaders(token) });
    expectError(refused, 401, 'TOKEN_INVALID');
    const own = await h.inject({ method: 'GET', url: '/evm-eoas/challenge', headers: h.bearerHeaders(token, other) });
    expect(own.statusCode).toBe(200);
    expectError(await h.inject({ method: 'GET', url: `/evm-eoas?userId=${foreignUser}`, headers: h.keyHeaders() }), 404, 'USER_NOT_FOUND');
    const admin = await h.createUser(undefined, undefined, 'admin');
    expectError(
      await h.inject({ method: 'GET', url: `/evm-eoas?userId=${foreignUser}`, headers: h.bearerHeaders(await h.tokenFor(admin)) }),
      404,
      'USER_NOT_FOUND',
    );
  });

  it("a nonce of this tenant's user cannot be spent under another tenant", async () => {
    const other = await h.newTenant();
    const token = await h.tokenFor(userId);
    const challenge = (await h.inject({ method: 'GET', url: '/evm-eoas/challenge', headers: h.bearerHeaders(token) })).json();
    const foreignUser = await h.createUser(other);
    const account = privateKeyToAccount(generatePrivateKey());
    const message = `bastion.test wants you to sign in with your Ethereum account:\n${account.address}\n\nx\n\nURI: http://bastion.test\nVersion: 1\nChain ID: 31337\nNonce: ${challenge.nonce}\nIssued At: ${challenge.issuedAt}`;
    const res = await h.inject({
      method: 'POST',
      url: '/evm-eoas',
      headers: h.bearerHeaders(await h.tokenFor(foreignUser, other), other),
      payload: { message, signature: await account.signMessage({ message }) },
    });
    expectError(res, 400, 'CHALLENGE_UNKNOWN');
  });
});
