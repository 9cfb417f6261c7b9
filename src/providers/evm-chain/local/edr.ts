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
import { custom, hexToBytes, type EIP1193RequestFn } from 'viem';
import { chainDefinition, portOver } from '../clients.js';
import type { EvmChainPort } from '../port.js';
import { DEV_ACCOUNT_BALANCE, loadDevAccounts } from './dev-accounts.js';

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

async function startProvider(chainId: number, fundedAddresses: readonly `0x${string}`[]): Promise<Provider> {
  const edr = await edrContext();
  const hardfork = PRAGUE;
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
      initialBaseFeePerGas: 1_000_000_000n,
      minGasPrice: 0n,
      // Every transaction is mined at once into its own block, as a development chain does.
      mining: { autoMine: true, memPool: { order: MineOrdering.Priority } },
      network: { genesisBlockGasLimit: BLOCK_GAS_LIMIT },
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

/** An EIP-1193 request function over the EDR provider: JSON-RPC in, result out, errors with their code. */
export function eip1193(provider: Provider): EIP1193RequestFn {
  let nextId = 1;
  return (async ({ method, params }: { method: string; params?: unknown }) => {
    const response = await provider.handleRequest(JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params: params ?? [] }));
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
 * automining, with funded development accounts. Its state lives in memory and resets on restart.
 */
export async function createLocalEvmChain(options: { chainId: number; dataDir: string }): Promise<EvmChainPort> {
  const devAccounts = loadDevAccounts(options.dataDir, options.chainId);
  const provider = await startProvider(options.chainId, devAccounts.map((a) => a.address));
  const chain = chainDefinition(options.chainId, 'Bastion local chain');
  // retryCount 0: an in-process call that failed fails the same way again.
  const transport = custom({ request: eip1193(provider) }, { retryCount: 0 });
  return portOver({ mode: 'local', chain, transport, devAccounts });
}
