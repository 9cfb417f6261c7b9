/**
 * The sandbox driven by the provider's own SDK, unmodified (@dfns/sdk with @dfns/sdk-keysigner
 * as the credentials): delegated registration, delegated login, wallet creation, signatures
 * and a broadcast, over real HTTP. The SDK resolves its absolute paths against the base URL's
 * origin, so the sandbox (served under /sandbox/custody-b) is given its own origin here by a
 * plain reverse proxy, as a host-based route would in a deployment.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DfnsApiClient, DfnsDelegatedApiClient } from '@dfns/sdk';
import { AsymmetricKeySigner } from '@dfns/sdk-keysigner';
import { hashMessage, parseEther, recoverAddress, serializeTransaction, toHex, verifyMessage, verifyTypedData, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decode, encode, verifySignature, Wallet, type Payment } from 'xrpl';
import type { ChainsServices } from '../../src/chains/index.js';
import { SANDBOX_PREFIX } from '../../src/sandboxes/custody-b/plugin.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { keyAttestation, newKeyCredential, TYPED_DATA } from '../helpers/custody-b.js';

let h: Harness;
let proxy: Server;
let providerUrl: string;

beforeAll(async () => {
  h = await createHarness({ listen: true });
  const target = new URL(h.baseUrl);
  proxy = createServer((req, res) => {
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: `${SANDBOX_PREFIX}${req.url}`, headers: { ...req.headers, host: target.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  providerUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
}, 120_000);
afterAll(async () => {
  await new Promise((resolve) => proxy?.close(resolve));
  await h?.close();
});

const services = <T>(name: string) => h.container.modules.find((m) => m.name === name)!.services as T;

describe('@dfns/sdk against the custody-b sandbox', () => {
  it('registers an end user, logs in, creates a wallet, signs and broadcasts', async () => {
    const conn = await h.container.sandboxes.custodyB.connection(h.tenant.tenantId);
    const service = new DfnsApiClient({
      baseUrl: providerUrl,
      authToken: conn.serviceToken,
      signer: new AsymmetricKeySigner({ credId: conn.serviceCredId, privateKey: conn.servicePrivateKeyPem }),
    });

    // Delegated registration: the service asks (a user action signed by its own key)...
    const email = `sdk-${Date.now()}@example.com`;
    const challenge = await service.auth.createDelegatedRegistrationChallenge({ body: { email, kind: 'EndUser' } });
    expect(challenge.supportedCredentialKinds.firstFactor).toContain('Key');
    // ...and the user's new key credential answers (the key signer only signs assertions, so
    // its attestation is made here with the same key the signer then uses).
    const userKey = newKeyCredential('p256');
    const registration = await new DfnsApiClient({ baseUrl: providerUrl, authToken: challenge.temporaryAuthenticationToken }).auth.register({
      body: { firstFactorCredential: keyAttestation(userKey, challenge.challenge) },
    });
    expect(registration.user).toMatchObject({ id: challenge.user.id, username: email });
    await expect(
      new DfnsApiClient({ baseUrl: providerUrl, authToken: challenge.temporaryAuthenticationToken }).auth.register({ body: { firstFactorCredential: keyAttestation(userKey, challenge.challenge) } }),
    ).rejects.toMatchObject({ httpStatus: 401 });

    // Delegated login, then the user's own calls, each a user action signed by the user's key.
    const { token } = await service.auth.delegatedLogin({ body: { username: email } });
    const signer = new AsymmetricKeySigner({ credId: userKey.credId, privateKey: userKey.privateKeyPem });
    const delegated = new DfnsDelegatedApiClient({ baseUrl: providerUrl, authToken: token });
    const init = await delegated.wallets.createWalletInit({ body: { network: 'EthereumSepolia' } });
    const wallet = await delegated.wallets.createWalletComplete({ body: { network: 'EthereumSepolia' } }, { challengeIdentifier: init.challengeIdentifier, firstFactor: await signer.sign(init) });
    expect(wallet).toMatchObject({ network: 'EthereumSepolia', status: 'Active', signingKey: { curve: 'secp256k1' } });
    const user = new DfnsApiClient({ baseUrl: providerUrl, authToken: token, signer });
    expect((await user.wallets.listWallets()).items.map((w) => w.id)).toEqual([wallet.id]);

    const message = await user.wallets.generateSignature({ walletId: wallet.id, body: { kind: 'Message', message: toHex('hello from the SDK') } });
    expect(await verifyMessage({ address: wallet.address as Hex, message: 'hello from the SDK', signature: message.signature!.encoded as Hex })).toBe(true);
    const { r, s, recid } = message.signature!;
    expect(await recoverAddress({ hash: hashMessage('hello from the SDK'), signature: { r: r as Hex, s: s as Hex, yParity: recid! } })).toBe(wallet.address);

    const { primaryType: _omitted, ...typed } = TYPED_DATA;
    const typedSig = await user.wallets.generateSignature({ walletId: wallet.id, body: { kind: 'Eip712', ...typed } });
    expect(await verifyTypedData({ ...TYPED_DATA, address: wallet.address as Hex, signature: typedSig.signature!.encoded as Hex } as Parameters<typeof verifyTypedData>[0])).toBe(true);

    // A broadcast to the local chain.
    const evm = await services<ChainsServices>('chains').evmChain();
    await evm.publicClient.waitForTransactionReceipt({ hash: await evm.walletClient(evm.devAccounts[1]!).sendTransaction({ to: wallet.address as Hex, value: parseEther('1') }) });
    const transaction = serializeTransaction({ type: 'eip1559', chainId: evm.chainId, nonce: 0, to: '0x000000000000000000000000000000000000bEEF', value: 1n, gas: 21_000n, maxFeePerGas: 10_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n });
    const sent = await user.wallets.broadcastTransaction({ walletId: wallet.id, body: { kind: 'Transaction', transaction } });
    expect(sent.status).toBe('Broadcasted');
    expect((await evm.publicClient.waitForTransactionReceipt({ hash: (sent as { txHash: Hex }).txHash })).status).toBe('success');

    // An XRPL wallet: a transaction signed (signedData, verifiable) and one broadcast to the ledger.
    const xrplWallet = await user.wallets.createWallet({ body: { network: 'XrpLedgerTestnet' } });
    expect(xrplWallet.address).toMatch(/^r[1-9A-HJ-NP-Za-km-z]{24,34}$/);
    const ledger = services<ChainsServices>('chains').xrplLedger;
    await ledger.fundAccount(xrplWallet.address!, '30');
    const unsigned = (tx: Payment) => ledger.autofill(tx).then((filled) => encode(filled));
    const payment: Payment = { TransactionType: 'Payment', Account: xrplWallet.address!, Destination: Wallet.generate().classicAddress, Amount: '2000000' };
    const xrplSig = await user.wallets.generateSignature({ walletId: xrplWallet.id, body: { kind: 'Transaction', transaction: await unsigned(payment) } });
    const signedData = (xrplSig as { signedData: string }).signedData;
    expect(verifySignature(signedData)).toBe(true);
    expect(decode(signedData)).toMatchObject({ Account: xrplWallet.address, SigningPubKey: xrplWallet.signingKey.publicKey });
    const xrplSent = await user.wallets.broadcastTransaction({ walletId: xrplWallet.id, body: { kind: 'Transaction', transaction: await unsigned(payment) } });
    const lastLedger = Number((await ledger.autofill(payment)).LastLedgerSequence);
    expect(await ledger.waitForFinal((xrplSent as { txHash: string }).txHash, lastLedger, { timeoutMs: 10_000 })).toMatchObject({ status: 'validated', result: 'tesSUCCESS' });
    // An XRPL wallet signs transactions only.
    await expect(user.wallets.generateSignature({ walletId: xrplWallet.id, body: { kind: 'Message', message: toHex('hi') } })).rejects.toMatchObject({ httpStatus: 400 });

    // Without the user's signer, the SDK cannot make a user action (and the sandbox wants one).
    await expect(new DfnsApiClient({ baseUrl: providerUrl, authToken: token }).wallets.createWallet({ body: { network: 'Ethereum' } })).rejects.toThrow(/signer/);
  }, 120_000);
});
