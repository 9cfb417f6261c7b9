// The value-moving rows (issue #30, goal 6), each beside a ceiling measured in the same run,
// right after it with the service idle: SIWE registration, XRPL tx-submit to validation,
// custody-a transfer to CONFIRMED, document upload (MB/s). Run by bench/run.ts while the
// service is up; README "Benchmark" says how to read them.
import type { Config } from '../../src/config.js';
import type { ServerProcess } from '../processes.js';
import { postgresCpuMs } from '../machine.js';
import { closedLoop, settle, withCpu, type FlowOp, type FlowResult } from './driver.js';
import { boundTransferOp, confirmationWatcher, evmCeilingOwnChain, prepareBound, prepareVaults, transferOp } from './custody.js';
import { documentFactory, storageCeiling, uploadOp } from './documents.js';
import { call, inParallel, type Caller } from './http.js';
import { registerEoa, siweBoundOp, siweCeiling, siweOp } from './siwe.js';
import { prepareXrplAccounts, registerCold, txSubmitOp, xrplCeiling } from './xrpl.js';
import { statements } from '../statements.js';

export const FLOW_KEYS = ['siwe', 'xrpl', 'custody', 'documents'] as const;
export type FlowKey = (typeof FLOW_KEYS)[number];

export interface FlowRow {
  key: FlowKey;
  route: string;
  /** Operations in flight (closed loop), for the row and its ceiling alike. */
  inFlight: number;
  /** `ops`: completed operations per second; `MB/s`: bytes per second (uploads). */
  unit: 'ops' | 'MB/s';
  result: FlowResult;
  /** CPU per completed operation: the service process and the PostgreSQL backends (ms). */
  cpu: { serverMs: number; dbMs?: number };
  rssMb: number;
  ceiling: { name: string; result: FlowResult };
  /** What bounds the row, where the bench measures it (right after the ceiling, the service idle), with its server's CPU per operation. */
  bound?: { name: string; result: FlowResult; cpu?: { serverMs: number; dbMs?: number } };
}

export interface FlowContext {
  service: ServerProcess;
  caller: Caller;
  apiKey: string;
  /** Bearer tokens of distinct users (fresh: exchanged from refresh tokens just before). */
  tokens: string[];
  userIds: string[];
  databaseUrl: string | undefined;
  databaseName: string | undefined;
  config: Pick<Config, 'dataDir' | 's3'>;
  inFlight: number;
  warmupSec: number;
  durationSec: number;
  log: (line: string) => void;
  /** The ceiling server (bench/ceiling-server.ts), where a row's bound has routes of its own. */
  boundServer?: { baseUrl: string; pid: number };
}

interface Ready {
  checks: {
    evmChain: { mode: string; chainId: number; rpcUrl?: string };
    xrplLedger: { mode: string; url?: string; faucetUrl?: string };
  };
}

/** Access tokens for `refreshTokens` (one per user, in order): POST /auth/refresh, as an app does after 15 minutes. */
export async function freshAccessTokens(caller: Caller, refreshTokens: string[]): Promise<string[]> {
  return inParallel(refreshTokens, 8, async (refreshToken) => {
    const answer = await call<{ accessToken: string }>(caller, 'POST', '/auth/refresh', { json: { refreshToken } });
    return answer.accessToken;
  });
}

const mbps = (r: FlowResult) => r.bytes / r.durationSec / 1e6;

function line(label: string, r: FlowResult, unit: FlowRow['unit']): string {
  const rate = unit === 'MB/s' ? `${mbps(r).toFixed(1)} MB/s (${r.rps.toFixed(1)}/s)` : `${r.rps.toFixed(1)}/s`;
  return `  ${label}: ${rate}, p50 ${r.p50Ms.toFixed(1)} ms, p99 ${r.p99Ms.toFixed(1)} ms${r.failures ? `, ${r.failures} failed (${r.firstError})` : ''}`;
}

/** Waits for the service to be idle again (the previous row's leftovers), and says when it was not. */
export async function settleService(ctx: Pick<FlowContext, 'service' | 'log'>): Promise<void> {
  const { waitedSec, settled } = await settle(ctx.service.pid);
  if (!settled) ctx.log(`  (the service was still busy after ${waitedSec.toFixed(0)} s: the next row shares the machine with that work)`);
  else if (waitedSec > 1.5) ctx.log(`  (waited ${waitedSec.toFixed(0)} s for the service to be idle)`);
}

/** Measures one row (CPU of the service and PostgreSQL per completed operation), then its ceiling. */
async function row(
  ctx: FlowContext,
  spec: {
    key: FlowKey; route: string; unit: FlowRow['unit']; inFlight: number; op: FlowOp; ceilingName: string; ceiling: () => Promise<FlowResult>;
    bound?: { name: string; op: FlowOp };
  },
): Promise<FlowRow> {
  await settleService(ctx);
  ctx.service.takePeakRss();
  await statements.reset();
  const db = ctx.databaseName ? () => postgresCpuMs(ctx.databaseName!) : undefined;
  const loop = (op: FlowOp) => closedLoop(op, { concurrency: spec.inFlight, warmupSec: ctx.warmupSec, durationSec: ctx.durationSec });
  // CPU over the warm-up and the measurement, per operation of both (the closed loop counts the measured ones).
  const share = ctx.durationSec / (ctx.durationSec + ctx.warmupSec);
  const perOp = (m: { serverMs: number; dbMs: number | undefined; value: FlowResult }) => {
    const n = Math.max(1, m.value.completed);
    return { serverMs: (m.serverMs * share) / n, ...(m.dbMs === undefined ? {} : { dbMs: (m.dbMs * share) / n }) };
  };
  const measured = await withCpu({ server: ctx.service.pid, db }, () => loop(spec.op));
  const rssMb = ctx.service.takePeakRss();
  const result = measured.value;
  const n = Math.max(1, result.completed);
  const cpu = perOp(measured);
  // The counters ran over the warm-up too: operations estimated as the CPU's are.
  await statements.record(`${spec.route} (warm-up included)`, Math.round(n / share));
  ctx.log(line(spec.route, result, spec.unit) + `, CPU/op ${cpu.serverMs.toFixed(2)} ms + PostgreSQL ${cpu.dbMs?.toFixed(2) ?? '-'} ms`);
  await settleService(ctx);
  const ceiling = await spec.ceiling();
  ctx.log(line(`ceiling: ${spec.ceilingName}`, ceiling, spec.unit));
  let bound: FlowRow['bound'];
  if (spec.bound) {
    const op = spec.bound.op;
    const m = await withCpu({ ...(ctx.boundServer ? { server: ctx.boundServer.pid } : {}), db }, () => loop(op));
    const boundCpu = perOp(m);
    ctx.log(line(`bound: ${spec.bound.name}`, m.value, spec.unit) + `, CPU/op ${boundCpu.serverMs.toFixed(2)} ms + PostgreSQL ${boundCpu.dbMs?.toFixed(2) ?? '-'} ms`);
    bound = { name: spec.bound.name, result: m.value, ...(ctx.boundServer ? { cpu: boundCpu } : {}) };
  }
  return { key: spec.key, route: spec.route, unit: spec.unit, inFlight: spec.inFlight, result, cpu, rssMb, ceiling: { name: spec.ceilingName, result: ceiling }, ...(bound ? { bound } : {}) };
}

/** The selected value-moving rows, in order, with the service running and otherwise idle. */
export async function flowsPhase(ctx: FlowContext, selected: (key: string) => boolean): Promise<FlowRow[]> {
  const ready = await call<Ready>({ ...ctx.caller }, 'GET', '/ready');
  const { evmChain, xrplLedger } = ready.checks;
  const rows: FlowRow[] = [];
  const N = Math.min(ctx.inFlight, ctx.tokens.length);
  const timing = { warmupSec: ctx.warmupSec, durationSec: ctx.durationSec };

  if (selected('siwe')) {
    rows.push(
      await row(ctx, {
        key: 'siwe', route: 'SIWE registration: GET /evm-eoas/challenge, sign, POST /evm-eoas', unit: 'ops', inFlight: N,
        op: siweOp(ctx.caller, ctx.tokens, N),
        ceilingName: 'viem verifySiweMessage alone (in-process local EVM chain)',
        ceiling: () => siweCeiling({ concurrency: N, ...timing, chainId: evmChain.chainId, origin: ctx.caller.baseUrl }),
        ...(ctx.boundServer
          ? { bound: { name: 'bare routes: the nonce stored, then read, verifySiweMessage, and the nonce consumed with the wallet, audit and event written in one transaction', op: siweBoundOp(ctx.boundServer.baseUrl, ctx.userIds, N) } }
          : {}),
      }),
    );
  }

  if (selected('xrpl')) {
    if (!xrplLedger.url || !xrplLedger.faucetUrl) throw new Error('the xrpl row needs the service\'s XRPL stand-in (XRPL_URL unset, sandboxes on)');
    const accounts = await prepareXrplAccounts(ctx.caller, ctx.tokens, N, { url: xrplLedger.url, faucetUrl: xrplLedger.faucetUrl });
    try {
      rows.push(
        await row(ctx, {
          key: 'xrpl', route: 'XRPL POST /non-custodian-xrpl/tx-submit to validated (stand-in, 1 s ledgers)', unit: 'ops', inFlight: N,
          op: txSubmitOp(ctx.caller, ctx.tokens, accounts),
          ceilingName: 'xrpl Client submit to the stand-in, validated from its accounts stream',
          ceiling: () => xrplCeiling(accounts, timing),
        }),
      );
    } finally {
      await accounts.close();
    }
  }

  if (selected('custody')) {
    // The ceiling is a local chain of the same engine: the row must run on the local chain too.
    if (evmChain.mode !== 'local') throw new Error('the custody row needs the service\'s local EVM chain (EVM_RPC_URL unset)');
    if (!ctx.databaseUrl) throw new Error('the custody row watches the database: PostgreSQL only');
    const vaults = await prepareVaults(ctx.caller, ctx.apiKey, ctx.userIds.slice(0, N));
    const watcher = confirmationWatcher(ctx.databaseUrl, { table: 'custody_transactions', tenantId: ctx.caller.tenantId });
    const boundWatcher = ctx.boundServer ? confirmationWatcher(ctx.databaseUrl, { table: 'bench_bound_custody_tx' }) : undefined;
    if (ctx.boundServer) await prepareBound(ctx.boundServer.baseUrl, N);
    try {
      rows.push(
        await row(ctx, {
          key: 'custody', route: 'custody-a transfer (ETH) to CONFIRMED: POST .../transactions/transfer', unit: 'ops', inFlight: N,
          op: transferOp(ctx.caller, ctx.apiKey, vaults, watcher),
          ceilingName: 'a direct transaction on a chain of the same engine in a process of its own (viem over its JSON-RPC, receipt)',
          ceiling: () => evmCeilingOwnChain({ chainId: evmChain.chainId, concurrency: N, ...timing }),
          ...(ctx.boundServer && boundWatcher
            ? {
                bound: {
                  name:
                    'bare routes, both sides in one process: the idempotency key, the provider asked (Ed25519-signed, fetch), one statement recording the transaction with its audit, event and answer; the provider one insert, then four moves on a chain of its own (the sandbox\'s sign, send and confirm), each one update and a P-256-signed webhook, each taken in one transaction: the claim with the locked row, the change with its audit',
                  op: boundTransferOp(ctx.boundServer.baseUrl, boundWatcher),
                },
              }
            : {}),
        }),
      );
    } finally {
      await watcher.close();
      await boundWatcher?.close();
    }
  }

  if (selected('documents')) {
    const factory = documentFactory();
    rows.push(
      await row(ctx, {
        key: 'documents', route: `POST /user-documents (multipart, ${factory.size / 1024 / 1024} MiB PDF, each different)`, unit: 'MB/s', inFlight: N,
        op: uploadOp(ctx.caller, ctx.tokens, factory),
        ceilingName: 'the same bytes put to the storage port directly',
        ceiling: () => storageCeiling(ctx.config, factory, { concurrency: N, ...timing }),
      }),
    );
  }
  return rows;
}

/** The users the read rows rotate through (each registration is a SIWE and an XRPL proof: a few seconds for all). */
export const READ_USERS = 250;

/**
 * Data for the read rows: an EOA and a cold XRPL wallet for each bearer user (through the
 * routes: SIWE, challenge and signature); their KYC attempts are seeded. Not measured.
 * Answers the access tokens of those users, which the read rows use.
 */
export async function prepareReads(ctx: FlowContext): Promise<string[]> {
  const started = Date.now();
  const tokens = ctx.tokens.slice(0, READ_USERS);
  await inParallel(tokens, 8, async (token) => {
    await registerEoa(ctx.caller, token);
    await registerCold(ctx.caller, token);
  });
  ctx.log(`  read rows: an EOA and a cold XRPL wallet registered for each of ${tokens.length} users in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return tokens;
}

export { mbps };
