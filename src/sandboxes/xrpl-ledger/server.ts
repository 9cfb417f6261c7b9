import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { WriteAheadJournal, writeFileDurably } from '../../providers/write-ahead-journal.js';
import { isValidClassicAddress } from 'xrpl';
import { WebSocketServer, type WebSocket } from 'ws';
import { faucet, type FaucetOptions } from './faucet.js';
import { StandInLedger, type LedgerHeader, type LedgerJournalEntry, type LedgerSnapshot, type StandInLedgerOptions, type TxRecord } from './ledger.js';
import { resultCode, resultMessage } from './results.js';
import { handle, RpcError, type Request } from './rpc.js';

export interface StandInServerOptions extends StandInLedgerOptions, FaucetOptions {
  host?: string;
  port?: number;
  /** Close a ledger every this many milliseconds (0: only on demand). Default 1000. */
  closeIntervalMs?: number;
  /**
   * A JSON file that keeps the ledger across restarts, with its write-ahead journal next to it
   * (`<stateFile>.journal`): every accepted transaction and every ledger close is appended there
   * (transactions flushed to disk) before the stand-in answers; at start the saved state is
   * loaded and the journal re-applied after it. Unset: the ledger lives as long as the process.
   */
  stateFile?: string;
  /** Rewrite the state file (and empty the journal) after this many journal entries. Default 600. */
  compactEvery?: number;
}

export interface StandInServer {
  /** ws://host:port, for the xrpl Client. */
  url: string;
  /** http://host:port/accounts, the faucet (the XRPL test faucets' protocol). */
  faucetUrl: string;
  ledger: StandInLedger;
  /** Closes the open ledger now (as rippled's `ledger_accept`). */
  closeLedger(): LedgerHeader;
  stop(): Promise<void>;
}

interface Subscriber {
  ledger: boolean;
  transactions: boolean;
  accounts: Set<string>;
}

/**
 * Starts the local stand-in for rippled: its WebSocket API (the command subset in
 * docs/providers.md) and a faucet over HTTP, both on one loopback port, closing ledgers on a timer.
 */
export async function startStandIn(options: StandInServerOptions = {}): Promise<StandInServer> {
  const ledger = new StandInLedger(options);
  const persist = options.stateFile ? loadState(ledger, options.stateFile, options.compactEvery ?? 600) : undefined;
  const http = createServer((req, res) => {
    faucet(ledger, options, req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'Faucet error' }));
    });
  });
  const wss = new WebSocketServer({ server: http, maxPayload: 1024 * 1024 });
  // The HTTP server's errors (a port in use) are re-emitted here; the start below reports them.
  wss.on('error', () => undefined);
  const subscribers = new Map<WebSocket, Subscriber>();

  wss.on('connection', (socket) => {
    socket.on('message', (data) => {
      let request: Request;
      try {
        request = JSON.parse(data.toString());
        if (!request || typeof request !== 'object' || Array.isArray(request)) throw new Error('not an object');
      } catch {
        socket.send(JSON.stringify({ error: 'jsonInvalid', error_code: 1, error_message: 'Request is not a JSON object.', status: 'error', type: 'response' }));
        return;
      }
      socket.send(JSON.stringify(answer(ledger, request, socket, subscribers)));
    });
    socket.on('close', () => subscribers.delete(socket));
  });

  ledger.on('ledgerClosed', (header: LedgerHeader, txs: TxRecord[]) => {
    persist?.afterClose();
    for (const [socket, sub] of subscribers) {
      if (sub.ledger) socket.send(JSON.stringify({ type: 'ledgerClosed', ...ledgerStream(ledger, header), txn_count: header.transactions.length }));
      for (const record of txs) {
        const touches = sub.accounts.has(record.tx.Account) || (typeof record.tx.Destination === 'string' && sub.accounts.has(record.tx.Destination));
        if (sub.transactions || touches) socket.send(JSON.stringify(transactionStream(record, header)));
      }
    }
  });

  try {
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
    });
  } catch (error) {
    // The port is taken: give the state files back, so a start on another port can claim them.
    persist?.close();
    throw error;
  }
  const { address, port } = http.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  const interval = options.closeIntervalMs ?? 1000;
  const timer = interval > 0 ? setInterval(() => closeSafely(ledger), interval) : undefined;
  timer?.unref();
  return {
    url: `ws://${host}:${port}`,
    faucetUrl: `http://${host}:${port}/accounts`,
    ledger,
    closeLedger: () => ledger.close(),
    stop: async () => {
      await stop(http, wss, timer);
      persist?.close();
    },
  };
}

/** A timer tick must never take the process down. */
function closeSafely(ledger: StandInLedger): void {
  try {
    ledger.close();
  } catch (error) {
    ledger.emit('closeFailed', error);
  }
}

function answer(ledger: StandInLedger, request: Request, socket: WebSocket, subscribers: Map<WebSocket, Subscriber>): Record<string, unknown> {
  const base = { id: request.id, type: 'response', ...(request.api_version !== undefined ? { api_version: request.api_version } : {}) };
  try {
    const command = request.command ?? request.method;
    if (typeof command !== 'string') throw new RpcError('missingCommand', 0, 'Missing command entry.');
    if (request.api_version !== undefined && request.api_version !== 1 && request.api_version !== 2) throw new RpcError('invalid_API_version', 6, 'API version must be 1 or 2.');
    const req = { ...request, command };
    const result = command === 'subscribe' || command === 'unsubscribe' ? subscription(ledger, req, socket, subscribers) : handle(ledger, req);
    return { ...base, result, status: 'success' };
  } catch (error) {
    if (!(error instanceof RpcError)) {
      return { ...base, error: 'internal', error_code: 73, error_message: 'Internal error.', request, status: 'error' };
    }
    return { ...base, error: error.error, error_code: error.code, error_message: error.message, ...error.extra, request, status: 'error' };
  }
}

function subscription(ledger: StandInLedger, request: Request, socket: WebSocket, subscribers: Map<WebSocket, Subscriber>): Record<string, unknown> {
  const sub = subscribers.get(socket) ?? { ledger: false, transactions: false, accounts: new Set<string>() };
  const on = request.command === 'subscribe';
  const streams = Array.isArray(request.streams) ? request.streams : [];
  const accounts = Array.isArray(request.accounts) ? request.accounts : [];
  for (const stream of streams) {
    if (stream === 'ledger') sub.ledger = on;
    else if (stream === 'transactions') sub.transactions = on;
    else throw new RpcError('malformedStream', 0, 'Stream malformed.');
  }
  for (const account of accounts) {
    if (typeof account !== 'string' || !isValidClassicAddress(account)) throw new RpcError('actMalformed', 35, 'Account malformed.');
    if (on) sub.accounts.add(account);
    else sub.accounts.delete(account);
  }
  subscribers.set(socket, sub);
  return on && streams.includes('ledger') ? ledgerStream(ledger, ledger.validatedHeader) : {};
}

function ledgerStream(ledger: StandInLedger, header: LedgerHeader) {
  return {
    fee_base: Number(ledger.fees.baseFeeDrops), ledger_hash: header.ledger_hash, ledger_index: header.ledger_index, ledger_time: header.close_time,
    reserve_base: Number(ledger.fees.reserveBaseDrops), reserve_inc: Number(ledger.fees.reserveIncDrops),
    validated_ledgers: `${Math.max(1, header.ledger_index - 15)}-${header.ledger_index}`,
  };
}

function transactionStream(record: TxRecord, header: LedgerHeader) {
  return {
    type: 'transaction', engine_result: record.result, engine_result_code: resultCode(record.result), engine_result_message: resultMessage(record.result),
    ledger_hash: header.ledger_hash, ledger_index: header.ledger_index, meta: record.meta, tx_json: record.tx, hash: record.hash, validated: true,
  };
}

/**
 * Restores the ledger from `file` (if it exists) and re-applies its journal; from then on every
 * change is journaled before it is answered. The state file is rewritten (atomically) after
 * `compactEvery` journal entries and at a clean stop, and the journal emptied after it.
 */
function loadState(ledger: StandInLedger, file: string, compactEvery: number): { afterClose(): void; close(): void } {
  // The journal first: it is this process's claim on both files (JournalBusy if another has them).
  const { journal, entries } = WriteAheadJournal.open<LedgerJournalEntry>(`${file}.journal`);
  let snapshot: LedgerSnapshot | undefined;
  try {
    try {
      snapshot = JSON.parse(readFileSync(file, 'utf8')) as LedgerSnapshot;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    if (snapshot) ledger.restore(snapshot);
    // A new ledger: its genesis (ledger 1, closed at this start's time) is saved before anything else.
    else writeFileDurably(file, JSON.stringify(ledger.snapshot()));
  } catch (error) {
    journal.close();
    throw error;
  }
  try {
    ledger.replay(entries);
  } catch (error) {
    journal.close();
    throw new Error(`The XRPL stand-in cannot re-apply ${file}.journal to ${file}: ${(error as Error).message}. Move both files away to start a new ledger.`, { cause: error });
  }
  ledger.attachJournal((entry, durable) => journal.append(entry, durable));
  let savedSeq = snapshot?.journalSeq ?? 0;
  const compact = () => {
    writeFileDurably(file, JSON.stringify(ledger.snapshot()));
    savedSeq = ledger.journalSeq;
    journal.rewrite([]);
  };
  return {
    afterClose: () => {
      if (ledger.journalSeq - savedSeq < compactEvery) return;
      try {
        compact();
      } catch (error) {
        // The journal still holds every change: the next close tries again.
        ledger.emit('compactFailed', error);
      }
    },
    close: () => {
      try {
        if (ledger.journalSeq !== savedSeq) compact();
      } finally {
        journal.close();
      }
    },
  };
}

async function stop(http: Server, wss: WebSocketServer, timer: NodeJS.Timeout | undefined): Promise<void> {
  if (timer) clearInterval(timer);
  for (const client of wss.clients) client.terminate();
  await new Promise<void>((resolve) => wss.close(() => resolve()));
  await new Promise<void>((resolve) => http.close(() => resolve()));
}
