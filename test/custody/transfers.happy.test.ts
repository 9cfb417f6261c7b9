import { formatEther, parseEther, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { createVault, drain, evmChain, fundEvm } from './helpers.js';

let h: Harness;
let userId: string;
let token: string;
let vault: Awaited<ReturnType<typeof createVault>>;
beforeAll(async () => {
  h = await createHarness({ listen: true });
  userId = await h.createUser();
  token = await h.tokenFor(userId);
  vault = await createVault(h, userId);
  await fundEvm(h, vault.address, '2');
});
afterAll(async () => h.close());

const questionnaire = {
  destinationType: 'FINANCIAL_INSTITUTION',
  recipientType: 'DESTINATION_INSTITUTION',
  purpose: 'TRADING_SETTLEMENT',
  originatorType: 'MY_ORGANIZATION',
  selfhostedDescription: '',
  institutionName: 'Example Bank',
  institutionCountry: 'CH',
  originatorName: 'Acme Ltd',
  originatorStreetAddress: '1 Main St',
  originatorCity: 'Zurich',
  originatorStateProvince: 'ZH',
  originatorPostalCode: '8000',
  originatorCountry: 'CH',
  recipientFirstName: 'Ada',
  recipientLastName: 'Lovelace',
  recipientFullName: 'Ada Lovelace',
  recipientCountry: 'GB',
  recipientStreetAddress: '2 High St',
  recipientCity: 'London',
  recipientStateProvince: 'LDN',
  recipientPostalCode: 'N1',
};

describe('POST /non-custodial-evm/transfers', () => {
  it('sends with the travel-rule data, replays the first answer, reaches COMPLETED by webhook; the questionnaire only for the API key', async () => {
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const payload = {
      amount: '0.5', assetType: 'ETH', sourceId: vault.wallets[0]!.walletId, sourceType: 'WALLET', destinationId: to, destinationType: 'ADDRESS',
      deductFeeFromAmountIfSameType: false, idempotentId: 'tr-1', transferMemo: 'settlement 42', provider: 'custody-a', transferAmlQuestionnaire: questionnaire,
    };
    const api = h.api(h.bearerHeaders(token));
    const first = await api.POST('/non-custodial-evm/transfers', { body: payload });
    expect(first.response.status, JSON.stringify(first.error)).toBe(201);
    const transfer = first.data!;
    expect(transfer).toMatchObject({ userId, amount: '0.5', assetType: 'ETH', destinationId: to, status: 'QUEUED', hasQuestionnaire: true });
    expect(transfer.transferAmlQuestionnaire).toBeUndefined();
    const replay = await api.POST('/non-custodial-evm/transfers', { body: payload });
    expect(replay.data).toEqual(transfer);
    expect((await api.POST('/non-custodial-evm/transfers', { body: { ...payload, amount: '0.6' } })).response.status).toBe(409);

    // The sandbox executes, and its signed webhooks arrive (a webhook may start work of its own:
    // drain until the row is final, with a deadline).
    const read = async () => {
      const stored = await h.container.db.execute(`select status, hash, questionnaire_sealed from custody_transfers where id = '${transfer.id}'`);
      return (stored as unknown as { rows: { status: string; hash: string; questionnaire_sealed: string }[] }).rows[0]!;
    };
    let row = await read();
    for (const deadline = Date.now() + 20_000; row.status !== 'COMPLETED' && row.status !== 'FAILED' && Date.now() < deadline; row = await read()) {
      await drain(h);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(row.status).toBe('COMPLETED'); // moved by the webhook, before any read
    expect(row.questionnaire_sealed).not.toContain('Lovelace');

    const byId = { params: { path: { id: transfer.id } } };
    const mine = await api.GET('/non-custodial-evm/transfers/{id}', byId);
    expect(mine.data).toMatchObject({ status: 'COMPLETED', hash: row.hash });
    expect(mine.data!.transferAmlQuestionnaire).toBeUndefined();
    const asService = await h.api(h.keyHeaders()).GET('/non-custodial-evm/transfers/{id}', byId);
    expect(asService.data!.transferAmlQuestionnaire).toEqual(questionnaire);
    const chain = await evmChain(h);
    expect((await chain.publicClient.getTransaction({ hash: row.hash as `0x${string}` })).value).toBe(parseEther('0.5'));
    const list = await api.GET('/non-custodial-evm/transfers');
    expect(list.data).toMatchObject({ total: 1, data: [{ id: transfer.id }] });
  });

  it('ten concurrent repeats of one transfer move value once', async () => {
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const payload = { amount: '0.01', assetType: 'ETH', sourceId: vault.wallets[0]!.walletId, sourceType: 'WALLET', destinationId: to, destinationType: 'ADDRESS', idempotentId: 'burst', provider: 'custody-a' };
    const api = h.api(h.bearerHeaders(token));
    const answers = await Promise.all(Array.from({ length: 10 }, () => api.POST('/non-custodial-evm/transfers', { body: payload })));
    const ids = new Set(answers.filter((a) => a.response.status === 201).map((a) => a.data!.id));
    expect(ids.size).toBe(1);
    for (const a of answers) expect([201, 409]).toContain(a.response.status);
    await drain(h);
    const chain = await evmChain(h);
    expect(await chain.publicClient.getBalance({ address: to })).toBe(parseEther('0.01'));
  });

  it('deductFeeFromAmountIfSameType: the source spends exactly the amount, the destination gets it less the fee; a whole balance sweeps to zero', async () => {
    const source = await createVault(h, userId);
    await fundEvm(h, source.address, '1');
    const chain = await evmChain(h);
    const balance = (address: string) => chain.publicClient.getBalance({ address: address as Hex });
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const api = h.api(h.bearerHeaders(token));
    const send = async (amount: string, idempotentId: string) => {
      const payload = {
        amount, assetType: 'ETH', sourceId: source.wallets[0]!.walletId, sourceType: 'WALLET', destinationId: to, destinationType: 'ADDRESS',
        deductFeeFromAmountIfSameType: true, idempotentId, provider: 'custody-a',
      };
      const res = await api.POST('/non-custodial-evm/transfers', { body: payload });
      expect(res.response.status, JSON.stringify(res.error)).toBe(201);
      const byId = { params: { path: { id: res.data!.id } } };
      let read = await api.GET('/non-custodial-evm/transfers/{id}', byId);
      for (const deadline = Date.now() + 20_000; !['COMPLETED', 'FAILED'].includes(read.data?.status ?? '') && Date.now() < deadline; ) {
        await drain(h);
        await new Promise((resolve) => setTimeout(resolve, 50));
        read = await api.GET('/non-custodial-evm/transfers/{id}', byId);
      }
      expect(read.data!.status).toBe('COMPLETED');
      const receipt = await chain.publicClient.getTransactionReceipt({ hash: read.data!.hash! as Hex });
      return receipt.gasUsed * receipt.effectiveGasPrice;
    };

    const before = await balance(source.address);
    const fee = await send('0.05', 'fee-1');
    expect(fee).toBeGreaterThan(0n);
    expect(before - (await balance(source.address))).toBe(parseEther('0.05'));
    expect(await balance(to)).toBe(parseEther('0.05') - fee);

    // The whole balance: the source ends at zero, the destination gets the rest less the fee.
    const all = await balance(source.address);
    const received = await balance(to);
    const sweepFee = await send(formatEther(all), 'sweep-1');
    expect(await balance(source.address)).toBe(0n);
    expect((await balance(to)) - received).toBe(all - sweepFee);
  });
});
