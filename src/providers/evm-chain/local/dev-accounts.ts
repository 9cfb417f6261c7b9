import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';

export const DEV_ACCOUNTS_FILE = 'evm-dev-accounts.json';
const ACCOUNT_COUNT = 10;
/** 10,000 ether each, funded in the genesis block of every start. */
export const DEV_ACCOUNT_BALANCE = 10n ** 22n;

interface DevAccountsFile {
  chainId: number;
  note: string;
  accounts: Array<{ address: string; privateKey: Hex }>;
}

function readKeys(file: string): Hex[] | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<DevAccountsFile>;
    const keys = parsed.accounts?.map((a) => a.privateKey);
    if (!keys || keys.length === 0 || !keys.every((k) => typeof k === 'string' && /^0x[0-9a-f]{64}$/i.test(k))) return undefined;
    return keys;
  } catch {
    return undefined;
  }
}

/**
 * The funded development accounts of the local chain. Their keys live only in
 * DATA_DIR/evm-dev-accounts.json (mode 0600): made once, reused at every start (they are in the
 * genesis block the chain's journal replays onto), never printed.
 */
export function loadDevAccounts(dataDir: string, chainId: number): PrivateKeyAccount[] {
  const file = join(dataDir, DEV_ACCOUNTS_FILE);
  let keys = existsSync(file) ? readKeys(file) : undefined;
  if (!keys) {
    keys = Array.from({ length: ACCOUNT_COUNT }, () => generatePrivateKey());
    const accounts = keys.map((privateKey) => ({ address: privateKeyToAccount(privateKey).address, privateKey }));
    const content: DevAccountsFile = {
      chainId,
      note: 'Funded development accounts of the local in-process EVM chain (its state is kept in evm-local-chain.journal).',
      accounts,
    };
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    writeFileSync(file, JSON.stringify(content, null, 2) + '\n', { mode: 0o600 });
  }
  chmodSync(file, 0o600);
  return keys.map((k) => privateKeyToAccount(k));
}
