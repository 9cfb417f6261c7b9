import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import solc from 'solc';
import type { Abi, Hex } from 'viem';

export interface Compiled {
  abi: Abi;
  bytecode: Hex;
}

/** Compiles test/wallets/contracts/<file> with solc from npm (WebAssembly, nothing downloaded); answers the named contracts. */
export function compileContracts<N extends string>(file: string, names: readonly N[]): Record<N, Compiled> {
  const source = readFileSync(fileURLToPath(new URL(`./contracts/${file}`, import.meta.url)), 'utf8');
  const input = {
    language: 'Solidity',
    sources: { [file]: { content: source } },
    settings: { evmVersion: 'prague', optimizer: { enabled: true, runs: 200 }, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: Array<{ severity: string; formattedMessage: string }>;
    contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const compiled = {} as Record<N, Compiled>;
  for (const name of names) {
    const contract = output.contracts[file]![name]!;
    compiled[name] = { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
  }
  return compiled;
}

/** OwnedWallet.sol: an EIP-1271 wallet and its CREATE2 factory. */
export function compileWallets(): { wallet: Compiled; factory: Compiled } {
  const { OwnedWallet, OwnedWalletFactory } = compileContracts('OwnedWallet.sol', ['OwnedWallet', 'OwnedWalletFactory']);
  return { wallet: OwnedWallet, factory: OwnedWalletFactory };
}

/** TestToken.sol: a small ERC-20 (the deployer holds the supply). */
export const compileToken = (): Compiled => compileContracts('TestToken.sol', ['TestToken']).TestToken;
