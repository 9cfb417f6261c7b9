import {
  ContractDecoder,
  EdrContext,
  L1_CHAIN_TYPE,
  l1GenesisState,
  l1HardforkFromString,
  l1ProviderFactory,
  MineOrdering,
  PRAGUE,
  type Provider,
} from '@nomicfoundation/edr';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pLimit, { type LimitFunction } from 'p-limit';
import { custom, hexToBytes, type EIP1193RequestFn } from 'viem';
import { JournalCorrupt, WriteAheadJournal } from '../../write-ahead-journal.js';
import { chainDefinition, portOver } from '../clients.js';
import type { EvmChainPort, EvmChainStatus } from '../port.js';
import { DEV_ACCOUNT_BALANCE, loadDevAccounts } from './dev-accounts.js';
import {
  ChainJournal,
  EVM_JOURNAL_FILE,
  moveAside,
  replay,
  ReplayMismatch,
  type CallEntry,
  type ChainReset,
  type ChainSettings,
  type EvmJournalEntry,
  type GenesisEntry,
} from './journal.js';

/** EDR allows one context per process; every local chain (tests start several) is a provider of it. */
let context: Promise<EdrContext> | undefined;
function edrContext(): Promise<EdrContext> {
  context ??= (async () => {
    const created = new EdrContext();
    await created.registerProviderFactory(L1_CHAIN_TYPE, l1ProviderFactory());
    return created;
  })();
  return context;
}

const BLOCK_GAS_LIMIT = 30_000_000n;
const BASE_FEE = 1_000_000_000n;
const HARDFORK = PRAGUE;

async function startProvider(chainId: number, fundedAddresses: readonly `0x${string}`[], genesisTime: number): Promise<Provider> {
  const edr = await edrContext();
  const hardfork = HARDFORK;
  return edr.createProvider(
    L1_CHAIN_TYPE,
    {
      allowBlocksWithSameTimestamp: false,
      allowUnlimitedContractSize: false,
      bailOnCallFailure: false,
      bailOnTransactionFailure: false,
      chainId: BigInt(chainId),
      coinbase: new Uint8Array(20),
      defaultTransactionGasLimit: BLOCK_GAS_LIMIT,
      genesisState: [
        ...l1GenesisState(l1HardforkFromString(hardfork)),
        ...fundedAddresses.map((address) => ({ address: hexToBytes(address), balance: DEV_ACCOUNT_BALANCE })),
      ],
      hardfork,
      initialBaseFeePerGas: BASE_FEE,
      minGasPrice: 0n,
      // Every transaction is mined at once into its own block, as a development chain does.
      mining: { autoMine: true, memPool: { order: MineOrdering.Priority } },
      // A fixed genesis time: replaying the journal into a new provider makes the same blocks.
      network: { genesisBlockGasLimit: BLOCK_GAS_LIMIT, genesisBlockTime: BigInt(genesisTime) },
      networkId: BigInt(chainId),
      observability: {},
      // No keys inside the node: accounts sign in the process (viem local accounts) and send raw transactions.
      ownedAccounts: [],
      precompileOverrides: [],
    },
    { enable: false, decodeConsoleLogInputsCallback: () => [], printLineCallback: () => undefined },
    { subscriptionCallback: () => undefined },
    new ContractDecoder(),
  );
}

interface RpcError extends Error {
  code: number;
  data?: unknown;
}

/**
 * Requests in EDR at once, per provider. EDR runs each request on a thread of its own (a
 * blocking thread of its tokio runtime) that waits for the provider's lock: 400 requests at once
 * made 360 threads and 200 MB of RSS, and ran slower (9,200/s) than 4 at a time (40,000/s,
 * 22 threads, 79 MB). The others wait in order in this process.
 */
export const EDR_REQUESTS_AT_ONCE = 4;
const providerLimits = new WeakMap<Provider, LimitFunction>();

/** An EIP-1193 request function over the EDR provider: JSON-RPC in, result out, errors with their code. */
export function eip1193(provider: Provider): EIP1193RequestFn {
  let limit = providerLimits.get(provider);
  if (!limit) providerLimits.set(provider, (limit = pLimit(EDR_REQUESTS_AT_ONCE)));
  const atOnce = limit;
  let nextId = 1;
  return (async ({ method, params }: { method: string; params?: unknown }) => {
    const rpc = JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params: params ?? [] });
    const response = await atOnce(() => provider.handleRequest(rpc));
    const body = (typeof response.data === 'string' ? JSON.parse(response.data) : response.data) as {
      result?: unknown;
      error?: { code: number; message: string; data?: unknown };
    };
    if (body.error) {
      const error = new Error(body.error.message) as RpcError;
      error.code = body.error.code;
      error.data = body.error.data;
      throw error;
    }
    return body.result;
  }) as EIP1193RequestFn;
}

/**
 * A local EVM chain in this process: the Nomic Foundation EDR engine (the EVM inside Hardhat),
 * automining, with funded development accounts. EDR keeps its state in memory and has no state
 * dump, so the chain is kept across restarts by a write-ahead journal in
 * DATA_DIR/evm-local-chain.journal: every call that changes the chain is journaled (fsync)
 * before it is answered, and replayed at start into a fresh provider with the same genesis and
 * block times, which makes the same blocks with the same hashes. A journal that cannot be
 * replayed (corrupt, settings changed, another head) is moved aside and the chain starts empty;
 * the reset is logged through `onReset` and stays in `status().resets`.
 */
export async function createLocalEvmChain(options: {
  chainId: number;
  dataDir: string;
  now?: () => Date;
  onReset?: (reset: ChainReset) => void;
}): Promise<EvmChainPort> {
  const devAccounts = loadDevAccounts(options.dataDir, options.chainId);
  const settings: ChainSettings = {
    chainId: options.chainId,
    hardfork: HARDFORK,
    accounts: devAccounts.map((a) => a.address.toLowerCase()),
    balance: DEV_ACCOUNT_BALANCE.toString(),
    baseFeePerGas: BASE_FEE.toString(),
    blockGasLimit: BLOCK_GAS_LIMIT.toString(),
  };
  const opened = await openDurableChain(join(options.dataDir, EVM_JOURNAL_FILE), settings, devAccounts.map((a) => a.address), options.now ?? (() => new Date()));
  if (opened.reset) options.onReset?.(opened.reset);
  const chain = chainDefinition(options.chainId, 'Bastion local chain');
  // retryCount 0: an in-process call that failed fails the same way again.
  const request = opened.journal.wrap(eip1193(opened.provider));
  const transport = custom({ request }, { retryCount: 0 });
  const port = portOver({ mode: 'local', chain, transport, devAccounts, close: async () => opened.journal.close() });
  const resets = opened.resets;
  return {
    ...port,
    localRequest: request,
    async status(): Promise<EvmChainStatus> {
      const status = await port.status();
      return resets.length ? { ...status, resets } : status;
    },
  };
}

interface DurableChain {
  provider: Provider;
  journal: ChainJournal;
  /** Every reset this DATA_DIR's chain went through. */
  resets: ChainReset[];
  /** The reset of this start, if there was one. */
  reset?: ChainReset;
}

async function openDurableChain(file: string, settings: ChainSettings, funded: readonly `0x${string}`[], now: () => Date): Promise<DurableChain> {
  let opened: { journal: WriteAheadJournal<EvmJournalEntry>; entries: EvmJournalEntry[] } | undefined;
  let reason: string | undefined;
  let previous: GenesisEntry | undefined;
  let lostBlockNumber = 0;
  try {
    opened = WriteAheadJournal.open<EvmJournalEntry>(file);
  } catch (error) {
    if (!(error instanceof JournalCorrupt)) throw error;
    reason = `the journal is corrupt (${error.message})`;
    previous = firstLine(file);
  }
  if (opened && opened.entries.length) {
    const [genesis, ...rest] = opened.entries;
    const calls = rest as CallEntry[];
    previous = genesis?.t === 'genesis' ? genesis : undefined;
    lostBlockNumber = calls.at(-1)?.head.number ?? 0;
    if (!previous || previous.version !== 1 || calls.some((c) => c.t !== 'call')) reason = 'the journal is not one this version writes';
    else if (JSON.stringify(previous.settings) !== JSON.stringify(settings)) reason = `the chain settings changed (${changed(previous.settings, settings).join(', ')})`;
    else {
      const provider = await startProvider(settings.chainId, funded, previous.genesisTime);
      const request = eip1193(provider);
      try {
        const genesisHash = ((await request({ method: 'eth_getBlockByNumber', params: ['0x0', false] })) as { hash: string }).hash;
        if (genesisHash !== previous.genesisHash) throw new ReplayMismatch(`the genesis block is ${genesisHash}, journaled ${previous.genesisHash} (another engine version?)`);
        await replay(request, calls);
        await realignTime(request);
        return { provider, journal: new ChainJournal(opened.journal, calls.at(-1)?.n ?? 0), resets: previous.resets };
      } catch (error) {
        // A call the engine refuses now (or a malformed entry) is as unreplayable as a different head.
        reason = `the journal does not replay: ${(error as Error).message}`;
      }
    }
  }
  // A new chain: the first start in this DATA_DIR, or a reset.
  const at = now();
  let reset: ChainReset | undefined;
  if (reason) {
    opened?.journal.close();
    reset = { at: at.toISOString(), reason, lostBlockNumber, movedTo: moveAside(file, at) };
    opened = WriteAheadJournal.open<EvmJournalEntry>(file);
  }
  const journal = opened!.journal;
  const genesisTime = Math.floor(at.getTime() / 1000);
  const provider = await startProvider(settings.chainId, funded, genesisTime);
  const genesisHash = ((await eip1193(provider)({ method: 'eth_getBlockByNumber', params: ['0x0', false] })) as { hash: string }).hash;
  const resets = [...(previous?.resets ?? []), ...(reset ? [reset] : [])];
  journal.rewrite([{ t: 'genesis', version: 1, settings, genesisTime, genesisHash, resets }]);
  return { provider, journal: new ChainJournal(journal, 0), resets, ...(reset ? { reset } : {}) };
}

/** The replay set past block times; later blocks follow the wall clock again. */
async function realignTime(request: EIP1193RequestFn): Promise<void> {
  const offset = Number(await request({ method: 'evm_increaseTime', params: [0] } as never));
  if (offset < 0) await request({ method: 'evm_increaseTime', params: [-offset] } as never);
}

function changed(before: ChainSettings, after: ChainSettings): string[] {
  return (Object.keys(after) as (keyof ChainSettings)[]).filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
}

function firstLine(file: string): GenesisEntry | undefined {
  try {
    const entry = JSON.parse(readFileSync(file, 'utf8').split('\n')[0]!) as GenesisEntry;
    return entry.t === 'genesis' && Array.isArray(entry.resets) ? entry : undefined;
  } catch {
    return undefined;
  }
}
