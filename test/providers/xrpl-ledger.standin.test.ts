import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, Wallet, type Payment } from 'xrpl';
import WebSocket from 'ws';
import { startStandIn, type StandInServer } from '../../src/sandboxes/xrpl-ledger/server.js';

/** What only the stand-in offers or must get exactly right at the wire: envelopes, streams, faucet, closing on demand. */
let S: StandInServer;
let client: Client;

beforeAll(async () => {
  S = await startStandIn({ closeIntervalMs: 0 });
  client = new Client(S.url);
  await client.connect();
});
afterAll(async () => {
  await client?.disconnect();
  await S?.stop();
});

async function raw(messages: unknown[]): Promise<Record<string, unknown>[]> {
  const socket = new WebSocket(S.url);
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  const replies: Record<string, unknown>[] = [];
  const done = new Promise<void>((resolve) => socket.on('message', (data) => {
    replies.push(JSON.parse(data.toString()));
    if (replies.length === messages.length) resolve();
  }));
  for (const m of messages) socket.send(typeof m === 'string' ? m : JSON.stringify(m));
  await done;
  socket.close();
  return replies;
}

describe('xrpl-ledger stand-in: the WebSocket envelope', () => {
  it('answers with the request id and type "response", errors with status "error" and rippled tokens', async () => {
    const [ping, unknown, bad, noCommand, version] = await raw([
      { id: 'abc', command: 'ping' },
      { id: 7, command: 'no_such_command' },
      'this is not json',
      { id: 8 },
      { id: 9, command: 'ping', api_version: 9 },
    ]);
    expect(ping).toEqual({ id: 'abc', type: 'response', status: 'success', result: {} });
    expect(unknown).toMatchObject({ id: 7, type: 'response', status: 'error', error: 'unknownCmd', error_code: 32 });
    expect(bad).toMatchObject({ type: 'response', status: 'error', error: 'jsonInvalid' });
    expect(noCommand).toMatchObject({ id: 8, status: 'error', error: 'missingCommand' });
    expect(version).toMatchObject({ id: 9, status: 'error', error: 'invalid_API_version' });
  });

  it('refuses a submit without tx_blob and never signs for a secret', async () => {
    await expect(client.request({ command: 'submit' } as never)).rejects.toMatchObject({ data: { error: 'invalidParams' } });
    await expect(client.request({ command: 'submit', tx_json: {}, secret: 's' } as never)).rejects.toMatchObject({ data: { error: 'notSupported' } });
    await expect(client.request({ command: 'submit', tx_blob: 'ZZ' })).rejects.toMatchObject({ data: { error: 'invalidTransaction' } });
    await expect(client.request({ command: 'submit', tx_blob: '1200' })).rejects.toMatchObject({ data: { error: 'invalidTransaction' } });
  });
});

describe('xrpl-ledger stand-in: ledgers close on demand and stream', () => {
  it('ledger_accept closes the open ledger; subscribers get ledgerClosed and their transactions', async () => {
    const before = (await client.request({ command: 'ledger_current' })).result.ledger_current_index;
    const closed: number[] = [];
    client.on('ledgerClosed', (l) => closed.push(l.ledger_index));
    const seen: string[] = [];
    client.on('transaction', (t) => seen.push(t.hash!));
    await client.request({ command: 'subscribe', streams: ['ledger'] });
    const funded = S.ledger.fund(Wallet.generate().classicAddress, 50_000_000n);
    await client.request({ command: 'subscribe', accounts: [funded.tx.Destination as string] });
    const accepted = await client.request({ command: 'ledger_accept' } as never) as { result: { ledger_current_index: number } };
    expect(accepted.result.ledger_current_index).toBe(before + 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(closed).toEqual([before]);
    expect(seen).toEqual([funded.hash]);
    const tx = (await client.request({ command: 'tx', transaction: funded.hash })).result;
    expect(tx).toMatchObject({ validated: true, ledger_index: before, hash: funded.hash });
    const ledger = (await client.request({ command: 'ledger', ledger_index: before, transactions: true })).result;
    expect(ledger.ledger.transactions).toEqual([funded.hash]);
  });

  it('answers account_info for "current" from the open ledger and for "validated" only after the close', async () => {
    const address = Wallet.generate().classicAddress;
    S.ledger.fund(address, 20_000_000n);
    expect((await client.request({ command: 'account_info', account: address, ledger_index: 'current' })).result.account_data.Balance).toBe('20000000');
    await expect(client.request({ command: 'account_info', account: address, ledger_index: 'validated' })).rejects.toMatchObject({ data: { error: 'actNotFound' } });
    S.closeLedger();
    expect((await client.request({ command: 'account_info', account: address, ledger_index: 'validated' })).result.validated).toBe(true);
  });
});

describe('xrpl-ledger stand-in: resubmission', () => {
  it('answers tefALREADY for the same blob in the open ledger and tefPAST_SEQ once it is validated; one result per hash', async () => {
    const a = Wallet.generate();
    S.ledger.fund(a.classicAddress, 20_000_000n);
    S.closeLedger();
    const tx: Payment = await client.autofill({ TransactionType: 'Payment', Account: a.classicAddress, Destination: Wallet.generate().classicAddress, Amount: '2000000' });
    const { tx_blob, hash } = a.sign(tx);
    expect((await client.submit(tx_blob)).result).toMatchObject({ engine_result: 'tesSUCCESS', applied: true, tx_json: { hash } });
    expect((await client.submit(tx_blob)).result).toMatchObject({ engine_result: 'tefALREADY', applied: false });
    S.closeLedger();
    expect((await client.submit(tx_blob)).result.engine_result).toBe('tefPAST_SEQ');
    const found = (await client.request({ command: 'tx', transaction: hash })).result;
    expect(found).toMatchObject({ validated: true, meta: { TransactionResult: 'tesSUCCESS', delivered_amount: '2000000' } });
    expect((await client.request({ command: 'account_info', account: a.classicAddress, ledger_index: 'validated' })).result.account_data.Balance).toBe(String(20_000_000 - 2_000_000 - Number(tx.Fee)));
  });
});

describe('xrpl-ledger stand-in: faucet', () => {
  it('funds through the xrpl Client fundWallet with the stand-in faucet', async () => {
    const timer = setInterval(() => S.closeLedger(), 100);
    try {
      const url = new URL(S.faucetUrl);
      const { wallet, balance } = await client.fundWallet(null, { faucetHost: url.host, faucetProtocol: 'http', faucetPath: url.pathname, amount: '250' });
      expect(balance).toBe(250);
      expect(await client.getXrpBalance(wallet.classicAddress)).toBe(250);
    } finally {
      clearInterval(timer);
    }
  });

  it('refuses bad faucet requests with a 4xx', async () => {
    const post = (body: string) => fetch(S.faucetUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect((await post('{"destination":"rBad"}')).status).toBe(400);
    expect((await post(`{"destination":"${Wallet.generate().classicAddress}","xrpAmount":"-1"}`)).status).toBe(400);
    expect((await post(`{"destination":"${Wallet.generate().classicAddress}","xrpAmount":"0.5"}`)).status).toBe(400);
    expect((await post('not json')).status).toBe(400);
    expect((await fetch(S.faucetUrl.replace('/accounts', '/other'))).status).toBe(404);
  });
});

describe('xrpl-ledger stand-in: state file', () => {
  it('keeps accounts, sequences, ledgers and transactions across a restart', async () => {
    const { mkdtemp, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = await mkdtemp(join(tmpdir(), 'xrpl-standin-'));
    try {
      const stateFile = join(dir, 'ledger.json');
      const first = await startStandIn({ closeIntervalMs: 0, stateFile });
      const a = Wallet.generate();
      const funded = first.ledger.fund(a.classicAddress, 30_000_000n);
      first.closeLedger();
      const paid = first.ledger.submit(a.sign({ TransactionType: 'Payment', Account: a.classicAddress, Destination: Wallet.generate().classicAddress, Amount: '2000000', Fee: '10', Sequence: first.ledger.openIndex - 1 }).tx_blob);
      expect(paid.result).toBe('tesSUCCESS');
      first.closeLedger();
      const index = first.ledger.validatedIndex;
      await first.stop();

      const second = await startStandIn({ closeIntervalMs: 0, stateFile });
      const c = new Client(second.url);
      await c.connect();
      try {
        const info = (await c.request({ command: 'account_info', account: a.classicAddress, ledger_index: 'validated' })).result;
        expect(info.account_data).toMatchObject({ Balance: String(30_000_000 - 2_000_000 - 10), Sequence: (paid.tx.Sequence as number) + 1 });
        expect(info.ledger_index).toBe(index);
        expect((await c.request({ command: 'tx', transaction: funded.hash })).result.validated).toBe(true);
        const next = a.sign({ TransactionType: 'Payment', Account: a.classicAddress, Destination: Wallet.generate().classicAddress, Amount: '2000000', Fee: '10', Sequence: paid.tx.Sequence as number });
        expect((await c.submit(next.tx_blob)).result.engine_result).toBe('tefPAST_SEQ');
      } finally {
        await c.disconnect();
        await second.stop();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('xrpl-ledger stand-in: hostile requests', () => {
  it('answers every malformed request with an error token, never an internal error', async () => {
    const a = Wallet.generate();
    const offer = a.sign({ TransactionType: 'OfferCreate', Account: a.classicAddress, TakerGets: '1000', TakerPays: { currency: 'USD', issuer: Wallet.generate().classicAddress, value: '1' }, Fee: '10', Sequence: 1 });
    const requests = [
      { command: 'account_info', account: 42 },
      { command: 'account_info', account: a.classicAddress, ledger_index: { x: 1 } },
      { command: 'account_info', account: a.classicAddress, ledger_index: 'nonsense' },
      { command: 'account_info', account: a.classicAddress, ledger_index: 999_999 },
      { command: 'account_objects', account: 'r1', limit: 'x', marker: 5 },
      { command: 'account_lines', account: a.classicAddress, peer: 'nope' },
      { command: 'ledger', ledger_index: 'abc' },
      { command: 'ledger', ledger_hash: 'F'.repeat(64) },
      { command: 'tx', transaction: 'short' },
      { command: 'tx', transaction: 'A'.repeat(64), binary: true },
      { command: 'submit', tx_blob: 12 },
      { command: 'submit', tx_blob: 'GG' },
      { command: 'subscribe', streams: ['server'] },
      { command: 'subscribe', accounts: ['rBad'] },
      { command: 42 },
      [1, 2, 3],
      null,
    ];
    const replies = await raw(requests.map((r, i) => (r && typeof r === 'object' && !Array.isArray(r) ? { id: i, ...r } : r)));
    for (const reply of replies) {
      expect(reply).toMatchObject({ type: 'response', status: 'error' });
      expect(reply.error).not.toBe('internal');
    }
    const unknownType = (await client.request({ command: 'submit', tx_blob: offer.tx_blob })).result;
    expect(unknownType.engine_result).toBe('temUNKNOWN');
  });
});
