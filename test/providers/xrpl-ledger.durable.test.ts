import { appendFileSync, copyFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ONE_PASS_ONLY } from '../helpers/passes.js';
import { Client, Wallet, type Payment } from 'xrpl';
import { accountIndex, type AccountRoot } from '../../src/sandboxes/xrpl-ledger/view.js';
import { startStandIn, type StandInServer } from '../../src/sandboxes/xrpl-ledger/server.js';
import { JournalBusy } from '../../src/providers/write-ahead-journal.js';
import { kill9, startProcess } from './processes/spawn.js';
import { servicePort } from '../helpers/ports.js';

/** A crash image: the state file and journal as they are on disk now, copied elsewhere while the stand-in runs on. */
function crashImage(dir: string): string {
  const copy = mkdtempSync(join(tmpdir(), 'xrpl-crash-'));
  for (const name of ['ledger.json', 'ledger.json.journal']) if (existsSync(join(dir, name))) copyFileSync(join(dir, name), join(copy, name));
  return join(copy, 'ledger.json');
}

function pay(server: StandInServer, from: Wallet, to: string, drops: number) {
  const sequence = (server.ledger.stateAt('current')!.state.get(accountIndex(from.classicAddress)) as AccountRoot).Sequence;
  return server.ledger.submit(from.sign({ TransactionType: 'Payment', Account: from.classicAddress, Destination: to, Amount: String(drops), Fee: '10', Sequence: sequence }).tx_blob);
}
describe.skipIf(ONE_PASS_ONLY)('xrpl-ledger stand-in: write-ahead journal', () => {
  it('an accepted transaction still in the open ledger survives a crash; closed ledgers come back with the same hashes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'xrpl-wal-'));
    const first = await startStandIn({ closeIntervalMs: 0, stateFile: join(dir, 'ledger.json') });
    const second: StandInServer[] = [];
    try {
      const a = Wallet.generate();
      const b = Wallet.generate();
      expect(first.ledger.fund(a.classicAddress, 50_000_000n).result).toBe('tesSUCCESS');
      const closed = first.closeLedger();
      first.closeLedger(); // an empty ledger
      const paid = pay(first, a, b.classicAddress, 20_000_000);
      expect(paid.result).toBe('tesSUCCESS'); // answered; the ledger holding it has not closed

      const image = crashImage(dir);
      second.push(await startStandIn({ closeIntervalMs: 0, stateFile: image }));
      const restarted = second[0]!;
      expect(restarted.ledger.header(closed.ledger_index)?.ledger_hash).toBe(closed.ledger_hash);
      expect(restarted.ledger.validatedHeader).toEqual(first.ledger.validatedHeader);
      expect(restarted.ledger.transaction(paid.hash)).toMatchObject({ result: 'tesSUCCESS', validated: false, ledgerIndex: first.ledger.openIndex });
      // Both go on the same way: the next close validates it in the same ledger with the same state.
      const h1 = first.ledger.close();
      const h2 = restarted.ledger.close(h1.close_time);
      expect(h2).toEqual(h1);
      expect(restarted.ledger.transaction(paid.hash)).toMatchObject({ validated: true });
    } finally {
      await first.stop();
      for (const s of second) await s.stop();
    }
  });

  it('drops a last line cut short by a crash, and refuses a journal that does not re-apply', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'xrpl-wal-'));
    const file = join(dir, 'ledger.json');
    const first = await startStandIn({ closeIntervalMs: 0, stateFile: file });
    const a = Wallet.generate();
    const funded = first.ledger.fund(a.classicAddress, 50_000_000n);
    const image = crashImage(dir);
    await first.stop();
    appendFileSync(`${image}.journal`, '{"n":2,"t":"clo');
    const torn = await startStandIn({ closeIntervalMs: 0, stateFile: image });
    expect(torn.ledger.transaction(funded.hash)?.result).toBe('tesSUCCESS');
    await torn.stop();

    const other = crashImage(dir);
    const line = JSON.stringify({ n: 1, t: 'submit', blob: funded.tx && first.ledger.transaction(funded.hash)!.blob, hash: funded.hash, result: 'tecNO_DST' });
    writeFileSync(`${other}.journal`, line + '\n');
    writeFileSync(other, JSON.stringify({ ...JSON.parse(readFileSync(join(dir, 'ledger.json'), 'utf8')), journalSeq: 0 }));
    await expect(startStandIn({ closeIntervalMs: 0, stateFile: other })).rejects.toThrow(/cannot re-apply .*Move both files away/);
  });

  it('rewrites the state file and empties the journal every compactEvery entries; a restart after it loses nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'xrpl-wal-'));
    const file = join(dir, 'ledger.json');
    const first = await startStandIn({ closeIntervalMs: 0, stateFile: file, compactEvery: 3 });
    try {
      const a = Wallet.generate();
      first.ledger.fund(a.classicAddress, 50_000_000n);
      first.closeLedger();
      first.closeLedger(); // third entry: compacts after this close
      expect(readFileSync(`${file}.journal`, 'utf8')).toBe('');
      expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ journalSeq: 3 });
      const paid = pay(first, a, Wallet.generate().classicAddress, 1_000_000);
      const restarted = await startStandIn({ closeIntervalMs: 0, stateFile: crashImage(dir) });
      expect(restarted.ledger.transaction(paid.hash)?.result).toBe('tesSUCCESS');
      expect(restarted.ledger.journalSeq).toBe(4);
      await restarted.stop();
    } finally {
      await first.stop();
    }
  });
});

describe.skipIf(ONE_PASS_ONLY)('xrpl-ledger stand-in: one process per state file', () => {
  it('another live process holding the journal stops the stand-in from starting, before it writes anything', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'xrpl-wal-'));
    const file = join(dir, 'ledger.json');
    writeFileSync(`${file}.journal.lock`, JSON.stringify({ pid: process.ppid }));
    await expect(startStandIn({ closeIntervalMs: 0, stateFile: file })).rejects.toThrow(JournalBusy);
    expect(existsSync(file)).toBe(false);
  });
});

describe.skipIf(ONE_PASS_ONLY)('xrpl-ledger stand-in: a real process killed with SIGKILL', () => {
  it('keeps a Payment it answered tesSUCCESS to the xrpl Client; after the restart the transaction validates and the balances hold', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'xrpl-kill-'));
    const port = String(servicePort());
    // Ledgers close every 10 s: the Payment is still in the open ledger when the process dies.
    const env = { DATA_DIR: dataDir, PORT: port, CLOSE_INTERVAL_MS: '10000' };
    const entry = 'test/providers/processes/xrpl-standin.ts';
    let proc = await startProcess(entry, env);
    let client = new Client(proc.ready[0]!);
    try {
      await client.connect();
      const funding = await (await fetch(proc.ready[1]!, { method: 'POST', body: JSON.stringify({ xrpAmount: '50' }) })).json() as { seed: string };
      const sender = Wallet.fromSeed(funding.seed);
      const receiver = Wallet.generate();
      const payment: Payment = { TransactionType: 'Payment', Account: sender.classicAddress, Destination: receiver.classicAddress, Amount: '20000000' };
      const prepared = await client.autofill(payment);
      const signed = sender.sign(prepared);
      const answer = await client.submit(signed.tx_blob);
      expect(answer.result.engine_result).toBe('tesSUCCESS');
      await kill9(proc);
      await client.disconnect().catch(() => undefined);

      proc = await startProcess(entry, { ...env, CLOSE_INTERVAL_MS: '200' });
      client = new Client(proc.ready[0]!);
      await client.connect();
      let tx = (await client.request({ command: 'tx', transaction: signed.hash })).result;
      for (let i = 0; i < 50 && !tx.validated; i++) {
        await new Promise((r) => setTimeout(r, 100));
        tx = (await client.request({ command: 'tx', transaction: signed.hash })).result;
      }
      expect(tx).toMatchObject({ validated: true, meta: { TransactionResult: 'tesSUCCESS' } });
      const balance = async (address: string) => (await client.request({ command: 'account_info', account: address, ledger_index: 'validated' })).result.account_data.Balance;
      expect(await balance(receiver.classicAddress)).toBe('20000000');
      expect(await balance(sender.classicAddress)).toBe(String(50_000_000 - 20_000_000 - Number(prepared.Fee)));
    } finally {
      await client.disconnect().catch(() => undefined);
      proc.child.kill('SIGTERM');
      await proc.exited;
    }
  }, 60_000);
});
