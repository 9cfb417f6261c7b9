import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import solc from 'solc';
import type { Abi, Hex } from 'viem';

export interface Compiled {
  abi: Abi;
  bytecode: Hex;
}

/** Compiles test/wallets/contracts/OwnedWallet.sol with solc from npm (WebAssembly, nothing downloaded). */
export function compileWallets(): { wallet: Compiled; factory: Compiled } {
  const source = readFileSync(fileURLToPath(new URL('./contracts/OwnedWallet.sol', import.meta.url)), 'utf8');
  const input = {
    language: 'Solidity',
    sources: { 'OwnedWallet.sol': { content: source } },
    settings: { evmVersion: 'prague', optimizer: { enabled: true, runs: 200 }, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: Array<{ severity: string; formattedMessage: string }>;
    contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const get = (name: string): Compiled => {
    const contract = output.contracts['OwnedWallet.sol']![name]!;
    return { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
  };
  return { wallet: get('OwnedWallet'), factory: get('OwnedWalletFactory') };
}
