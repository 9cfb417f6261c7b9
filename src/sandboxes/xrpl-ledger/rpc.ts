import { isValidClassicAddress } from 'xrpl';
import { accountFlags } from './flags.js';
import { InvalidTransaction, type LedgerHeader, type StandInLedger, type TxRecord } from './ledger.js';
import { resultCode, resultMessage } from './results.js';
import { lineForAccount } from './trust-lines.js';
import { accountIndex, signerListIndex, type AccountRoot, type Entry, type RippleState, type StateMap } from './view.js';

export const BUILD_VERSION = '2.4.0-bastion-standin';
const RIPPLE_EPOCH = 946_684_800;

/** A rippled RPC error: the `error` token, its number and message. */
export class RpcError extends Error {
  constructor(readonly error: string, readonly code: number, message: string, readonly extra: Record<string, unknown> = {}) {
    super(message);
  }
}
const ERR = {
  actMalformed: () => new RpcError('actMalformed', 35, 'Account malformed.'),
  actNotFound: () => new RpcError('actNotFound', 19, 'Account not found.'),
  invalidParams: (message: string) => new RpcError('invalidParams', 31, message),
  lgrNotFound: () => new RpcError('lgrNotFound', 21, 'ledgerNotFound'),
  txnNotFound: () => new RpcError('txnNotFound', 29, 'Transaction not found.'),
  unknownCmd: () => new RpcError('unknownCmd', 32, 'Unknown method.'),
  notSupported: (message: string) => new RpcError('notSupported', 75, message),
};

export type Request = Record<string, unknown> & { command: string; api_version?: number };

const xrp = (drops: bigint) => Number(drops) / 1_000_000;
const isoTime = (rippleTime: number) => new Date((rippleTime + RIPPLE_EPOCH) * 1000).toISOString().replace('.000Z', 'Z');

function ledgerOf(ledger: StandInLedger, request: Request) {
  const spec = request.ledger_hash ?? request.ledger_index ?? 'current';
  let target: ReturnType<StandInLedger['stateAt']>;
  if (typeof request.ledger_hash === 'string') {
    const header = ledger.headerByHash(request.ledger_hash);
    target = header && ledger.stateAt(header.ledger_index);
  } else if (spec === 'current') target = ledger.stateAt('current');
  else if (spec === 'validated' || spec === 'closed') target = ledger.stateAt('validated');
  else if (typeof spec === 'number' || (typeof spec === 'string' && /^\d+$/.test(spec))) target = ledger.stateAt(Number(spec));
  else throw ERR.invalidParams('ledgerIndexMalformed');
  if (!target) throw ERR.lgrNotFound();
  const where = target.header
    ? { ledger_hash: target.header.ledger_hash, ledger_index: target.index, validated: target.index <= ledger.validatedIndex }
    : { ledger_current_index: target.index, validated: false };
  return { state: target.state, where };
}

function accountParam(request: Request): string {
  if (typeof request.account !== 'string') throw ERR.invalidParams("Missing field 'account'.");
  if (!isValidClassicAddress(request.account)) throw ERR.actMalformed();
  return request.account;
}

function rootOf(state: StateMap, address: string): AccountRoot {
  const root = state.get(accountIndex(address)) as AccountRoot | undefined;
  if (!root) throw ERR.actNotFound();
  return root;
}

function ownedObjects(state: StateMap, address: string): Entry[] {
  const out: Entry[] = [];
  for (const entry of state.values()) {
    if (entry.LedgerEntryType === 'SignerList' && entry.index === signerListIndex(address)) out.push(entry);
    if (entry.LedgerEntryType === 'RippleState') {
      const line = entry as RippleState;
      if (line.LowLimit.issuer === address || line.HighLimit.issuer === address) out.push(entry);
    }
  }
  return out.sort((a, b) => (a.index < b.index ? -1 : 1));
}

function page<T>(items: T[], request: Request, key: (item: T) => string) {
  const limit = typeof request.limit === 'number' && request.limit > 0 ? Math.min(request.limit, 400) : 200;
  const start = typeof request.marker === 'string' ? items.findIndex((i) => key(i) === request.marker) : 0;
  if (start < 0) throw ERR.invalidParams('Invalid field \'marker\'.');
  const slice = items.slice(start, start + limit);
  const next = items[start + limit];
  return { slice, extra: next ? { limit, marker: key(next) } : {} };
}

function ledgerJson(header: LedgerHeader, ledger: StandInLedger, request: Request) {
  const out: Record<string, unknown> = {
    account_hash: header.account_hash, close_flags: header.close_flags, close_time: header.close_time,
    close_time_human: new Date((header.close_time + RIPPLE_EPOCH) * 1000).toUTCString(), close_time_iso: isoTime(header.close_time),
    close_time_resolution: header.close_time_resolution, closed: true, ledger_hash: header.ledger_hash,
    ledger_index: request.api_version === 1 ? String(header.ledger_index) : header.ledger_index,
    parent_close_time: header.parent_close_time, parent_hash: header.parent_hash, total_coins: header.total_coins,
    transaction_hash: header.transaction_hash,
  };
  if (request.transactions === true) {
    out.transactions = request.expand === true ? header.transactions.map((h) => txJson(ledger.transaction(h)!, request)) : header.transactions;
  }
  return out;
}

function txJson(record: TxRecord, request: Request): Record<string, unknown> {
  if (request.api_version === 1) {
    return { ...record.tx, hash: record.hash, meta: record.meta, ledger_index: record.ledgerIndex, inLedger: record.ledgerIndex, validated: record.validated };
  }
  return { tx_json: { ...record.tx }, meta: record.meta, hash: record.hash, ledger_index: record.ledgerIndex, validated: record.validated };
}

/** Answers one rippled WebSocket/JSON-RPC command from the stand-in's ledger. */
export function handle(ledger: StandInLedger, request: Request): Record<string, unknown> {
  const { fees } = ledger;
  const v = ledger.validatedHeader;
  switch (request.command) {
    case 'ping':
      return {};
    case 'server_info':
      return {
        info: {
          build_version: BUILD_VERSION, complete_ledgers: `${Math.max(1, v.ledger_index - 15)}-${v.ledger_index}`, hostid: 'STANDIN',
          io_latency_ms: 1, load_factor: 1, peers: 0, server_state: 'full', network_ledger: 'running', standalone: true,
          validated_ledger: { age: 0, base_fee_xrp: xrp(fees.baseFeeDrops), hash: v.ledger_hash, reserve_base_xrp: xrp(fees.reserveBaseDrops), reserve_inc_xrp: xrp(fees.reserveIncDrops), seq: v.ledger_index },
          validation_quorum: 0,
        },
      };
    case 'server_state':
      return {
        state: {
          build_version: BUILD_VERSION, complete_ledgers: `${Math.max(1, v.ledger_index - 15)}-${v.ledger_index}`, io_latency_ms: 1,
          load_base: 256, load_factor: 256, peers: 0, server_state: 'full',
          validated_ledger: { base_fee: Number(fees.baseFeeDrops), close_time: v.close_time, hash: v.ledger_hash, reserve_base: Number(fees.reserveBaseDrops), reserve_inc: Number(fees.reserveIncDrops), seq: v.ledger_index },
          validation_quorum: 0,
        },
      };
    case 'fee': {
      const base = fees.baseFeeDrops.toString();
      return {
        current_ledger_size: '0', current_queue_size: '0', expected_ledger_size: '1000', ledger_current_index: ledger.openIndex, max_queue_size: '2000',
        drops: { base_fee: base, median_fee: (fees.baseFeeDrops * 500n).toString(), minimum_fee: base, open_ledger_fee: base },
        levels: { median_level: '128000', minimum_level: '256', open_ledger_level: '256', reference_level: '256' },
      };
    }
    case 'ledger_current':
      return { ledger_current_index: ledger.openIndex };
    case 'ledger_closed':
      return { ledger_hash: v.ledger_hash, ledger_index: v.ledger_index };
    case 'ledger_accept':
      ledger.close();
      return { ledger_current_index: ledger.openIndex };
    case 'ledger': {
      const spec = request.ledger_hash ?? request.ledger_index ?? 'current';
      if (spec === 'current' || spec === ledger.openIndex) {
        return { ledger: { closed: false, ledger_index: request.api_version === 1 ? String(ledger.openIndex) : ledger.openIndex, parent_hash: v.ledger_hash }, ledger_current_index: ledger.openIndex, validated: false };
      }
      const header = typeof request.ledger_hash === 'string' ? ledger.headerByHash(request.ledger_hash)
        : spec === 'validated' || spec === 'closed' ? v : ledger.header(Number(spec));
      if (!header) throw ERR.lgrNotFound();
      return { ledger: ledgerJson(header, ledger, request), ledger_hash: header.ledger_hash, ledger_index: header.ledger_index, validated: true };
    }
    case 'account_info': {
      const account = accountParam(request);
      const { state, where } = ledgerOf(ledger, request);
      const root = rootOf(state, account);
      const out: Record<string, unknown> = { account_data: root, account_flags: accountFlags(root.Flags), ...where };
      if (request.signer_lists === true) {
        const list = state.get(signerListIndex(account));
        const lists = list ? [list] : [];
        if (request.api_version === 1) out.account_data = { ...root, signer_lists: lists };
        else out.signer_lists = lists;
      }
      return out;
    }
    case 'account_objects': {
      const account = accountParam(request);
      const { state, where } = ledgerOf(ledger, request);
      rootOf(state, account);
      const types: Record<string, string> = { signer_list: 'SignerList', state: 'RippleState' };
      let objects = ownedObjects(state, account);
      if (typeof request.type === 'string') {
        // Other ledger entry types exist in rippled but never in this ledger: an empty list.
        if (!/^[a-z_]+$/.test(request.type)) throw ERR.invalidParams("Invalid field 'type'.");
        const wanted = types[request.type];
        objects = objects.filter((o) => o.LedgerEntryType === wanted);
      }
      if (request.deletion_blockers_only === true) objects = objects.filter((o) => o.LedgerEntryType === 'RippleState');
      const { slice, extra } = page(objects, request, (o) => o.index);
      return { account, account_objects: slice, ...where, ...extra };
    }
    case 'account_lines': {
      const account = accountParam(request);
      const { state, where } = ledgerOf(ledger, request);
      rootOf(state, account);
      let lines = ownedObjects(state, account).filter((o) => o.LedgerEntryType === 'RippleState') as RippleState[];
      if (typeof request.peer === 'string') {
        if (!isValidClassicAddress(request.peer)) throw ERR.invalidParams("Invalid field 'peer'.");
        lines = lines.filter((l) => l.LowLimit.issuer === request.peer || l.HighLimit.issuer === request.peer);
      }
      const { slice, extra } = page(lines, request, (l) => l.index);
      return { account, lines: slice.map((l) => lineForAccount(l, account)), ...where, ...extra };
    }
    case 'submit': {
      if (typeof request.tx_blob !== 'string') {
        if (request.tx_json !== undefined) throw ERR.notSupported('The stand-in accepts only signed transactions (tx_blob); it never holds secrets.');
        throw ERR.invalidParams("Missing field 'tx_blob'.");
      }
      let outcome;
      try {
        outcome = ledger.submit(request.tx_blob);
      } catch (error) {
        if (error instanceof InvalidTransaction) throw new RpcError('invalidTransaction', 0, error.message, { error_exception: error.message });
        throw error;
      }
      const root = ledger.stateAt('current')!.state.get(accountIndex(outcome.tx.Account)) as AccountRoot | undefined;
      return {
        accepted: outcome.applied || outcome.held, applied: outcome.applied, broadcast: outcome.applied, kept: outcome.applied || outcome.held, queued: false,
        engine_result: outcome.result, engine_result_code: resultCode(outcome.result), engine_result_message: resultMessage(outcome.result),
        account_sequence_available: root?.Sequence ?? 0, account_sequence_next: root?.Sequence ?? 0,
        open_ledger_cost: fees.baseFeeDrops.toString(), validated_ledger_index: v.ledger_index,
        tx_blob: request.tx_blob.toUpperCase(), tx_json: { ...outcome.tx, hash: outcome.hash },
      };
    }
    case 'tx': {
      if (request.binary === true) throw ERR.notSupported('The stand-in answers tx in JSON only.');
      if (typeof request.transaction !== 'string' || !/^[0-9A-Fa-f]{64}$/.test(request.transaction)) throw ERR.invalidParams("Invalid field 'transaction'.");
      const record = ledger.transaction(request.transaction);
      if (!record) throw ERR.txnNotFound();
      const header = record.validated ? ledger.header(record.ledgerIndex) : undefined;
      const out = txJson(record, request);
      if (header) Object.assign(out, { ledger_hash: header.ledger_hash, close_time_iso: isoTime(header.close_time), ...(request.api_version === 1 ? { date: header.close_time } : {}) });
      return out;
    }
    default:
      throw ERR.unknownCmd();
  }
}
