import { parseEther, serializeTransaction } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWallet, registeredUser, signChallenge } from '../helpers/custody-b.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/security.js';
import { createVault, evmChain, fundEvm } from './helpers.js';
import { openApiDocument } from '../helpers/openapi.js';

let h: Harness;
let userId: string;
let token: string;
let vault: Awaited<ReturnType<typeof createVault>>;
const DEST = '0x000000000000000000000000000000000000dEaD';
beforeAll(async () => {
  h = await createHarness({ listen: true });
  userId = await h.createUser();
  token = await h.tokenFor(userId);
  vault = await createVault(h, userId);
  await fundEvm(h, vault.address, '1');
});
afterAll(async () => h.close());

const selfHosted = { destinationType: 'SELFHOSTED_WALLET', purpose: 'PAYMENT', originatorType: 'PERSON', originatorName: 'Ada Lovelace', originatorCountry: 'GB' };
const transferBody = (idempotentId: string, questionnaire: Record<string, string> = selfHosted) => ({
  amount: '0.01', assetType: 'ETH', sourceId: vault.wallets[0]!.walletId, sourceType: 'WALLET', destinationId: DEST, destinationType: 'ADDRESS',
  idempotentId, provider: 'custody-a', transferAmlQuestionnaire: questionnaire,
});
const postTransfer = (payload: object) => h.inject({ method: 'POST', url: '/non-custodial-evm/transfers', headers: h.bearerHeaders(token), payload });

describe('a 4xx that changed nothing does not use the idempotency key up', () => {
  it('POST /non-custodial-evm/transfers: purpose TRAVEL is 400 ENUM_VALUE_UNKNOWN; the corrected retry under the same idempotentId is sent, then replayed', async () => {
    expectError(await postTransfer(transferBody('aml-typo', { ...selfHosted, purpose: 'TRAVEL' })), 400, 'ENUM_VALUE_UNKNOWN');
    expectError(await postTransfer(transferBody('aml-typo', { ...selfHosted, originatorName: '' })), 400, 'TRAVEL_RULE_DATA_REQUIRED');
    const sent = await postTransfer(transferBody('aml-typo'));
    expect(sent.statusCode, sent.body).toBe(201);
    const again = await postTransfer(transferBody('aml-typo'));
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(sent.json());
    // Once it has been sent, the key is used: another body is 409.
    expectError(await postTransfer({ ...transferBody('aml-typo'), amount: '0.02' }), 409, 'IDEMPOTENCY_KEY_REUSED');
  });

  it('POST /non-custodial-evm/transfers: a source wallet that is not the caller\'s (400) leaves the key free too', async () => {
    expectError(await postTransfer({ ...transferBody('wrong-source'), sourceId: '00000000-0000-4000-8000-000000000000' }), 400, 'TRANSFER_SOURCE_INVALID');
    expect((await postTransfer(transferBody('wrong-source'))).statusCode).toBe(201);
  });

  it('custody-a transfer: a sequence on an EVM wallet (400 SEQUENCE_INVALID) leaves the Idempotency-Key free for the corrected request', async () => {
    const url = `/custody-a/vaults/${vault.id}/wallets/${vault.wallets[0]!.walletId}/transactions/transfer`;
    const headers = { ...h.keyHeaders(), 'idempotency-key': 'ca-typo' };
    const bad = { destinationAddress: DEST, symbol: 'ETH', qty: '0.01', sequence: '5' };
    expectError(await h.inject({ method: 'POST', url, headers, payload: bad }), 400, 'SEQUENCE_INVALID');
    const ok = await h.inject({ method: 'POST', url, headers, payload: { destinationAddress: DEST, symbol: 'ETH', qty: '0.01' } });
    expect(ok.statusCode, ok.body).toBe(201);
  });
});

describe('custody-b raw transactions', () => {
  it('a completion refused before the challenge is consumed (400 CHALLENGE_MISMATCH) leaves the Idempotency-Key free for the right one', async () => {
    const user = await registeredUser(h, 'p256');
    const wallet = await createWallet(h, user);
    await fundEvm(h, wallet.address, '0.1');
    const evm = await evmChain(h);
    const block = await evm.publicClient.getBlock();
    const tx = (value: string) =>
      serializeTransaction({
        type: 'eip1559', chainId: evm.chainId, nonce: 0, to: DEST, value: parseEther(value), gas: 21_000n,
        maxFeePerGas: (block.baseFeePerGas ?? 1_000_000_000n) * 2n + 1_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n,
      });
    const challenge = await h.inject({ method: 'POST', url: `/custody-b/raw-transaction/challenge?address=${wallet.address}`, headers: user.headers, payload: { transaction: tx('0.01') } });
    expect(challenge.statusCode).toBe(201);
    const signedChallenge = signChallenge(user.cred, challenge.json());
    const complete = (transaction: string) =>
      h.inject({ method: 'POST', url: `/custody-b/raw-transaction/complete?address=${wallet.address}`, headers: { ...user.headers, 'idempotency-key': 'cb-typo' }, payload: { transaction, signedChallenge } });
    expectError(await complete(tx('0.02')), 400, 'CHALLENGE_MISMATCH');
    const right = await complete(tx('0.01'));
    expect(right.statusCode, right.body).toBe(201);
    expect(right.json()).toMatchObject({ status: 'Broadcasted' });
  });
});

describe('the travel-rule questionnaire', () => {
  it('each TRAVEL_RULE_DATA_REQUIRED message fits its case', async () => {
    const selfHostedMissing = await postTransfer(transferBody(`m-${Math.random()}`, { destinationType: 'SELFHOSTED_WALLET', purpose: 'PAYMENT' }));
    expectError(selfHostedMissing, 400, 'TRAVEL_RULE_DATA_REQUIRED');
    expect(selfHostedMissing.json().message).toMatch(/self-hosted wallet/);
    expect(selfHostedMissing.json().message).not.toMatch(/institution/i);
    expect(selfHostedMissing.json().message).toContain('originatorType, originatorName, originatorCountry');

    const institution = await postTransfer(transferBody(`m-${Math.random()}`, { destinationType: 'FINANCIAL_INSTITUTION', purpose: 'PAYMENT' }));
    expectError(institution, 400, 'TRAVEL_RULE_DATA_REQUIRED');
    expect(institution.json().message).toMatch(/financial institution/);
    expect(institution.json().message).toContain('institutionName');

    const noCase = await postTransfer(transferBody(`m-${Math.random()}`, { purpose: 'PAYMENT' }));
    expectError(noCase, 400, 'TRAVEL_RULE_DATA_REQUIRED');
    expect(noCase.json().message).toMatch(/destinationType is required: FINANCIAL_INSTITUTION .* or SELFHOSTED_WALLET/);
  });

  it('is declared field by field in OpenAPI, each vocabulary with its values', async () => {
    const spec = await openApiDocument(h);
    const body = spec.paths['/non-custodial-evm/transfers'].post.requestBody.content['application/json'].schema;
    const q = body.properties.transferAmlQuestionnaire;
    expect(q.type).toBe('object');
    expect(q.additionalProperties).toBe(false);
    expect(Object.keys(q.properties)).toHaveLength(21);
    expect(q.properties.purpose.description).toContain('TRADING_SETTLEMENT, INVESTMENT, PAYMENT, OTHER');
    expect(q.properties.destinationType.description).toContain('FINANCIAL_INSTITUTION, SELFHOSTED_WALLET');
    expect(q.properties.institutionName.description).toMatch(/FINANCIAL_INSTITUTION/);
    for (const [name, field] of Object.entries(q.properties as Record<string, { description?: string }>)) expect(field.description, name).toBeTruthy();
  });
});
