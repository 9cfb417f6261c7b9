// Funds an address on the local EVM chain from the first development account and prints its
// balance: node docs/walkthrough/fund-evm.mjs 0xAddress [ether] (default 1; 0 only reads the
// balance). Run from the checkout or name it by its path there (it
// needs viem). RPC_URL defaults to the local chain's http://127.0.0.1:8545 (GET /ready names it:
// checks.evmChain.rpcUrl); DEV_ACCOUNTS to data/evm-dev-accounts.json (DATA_DIR/... if set).
import { readFileSync } from 'node:fs';
import process from 'node:process';
import { createPublicClient, createWalletClient, formatEther, http, parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { hardhat } from 'viem/chains'; // chain id 31337

const [to, ether = '1'] = process.argv.slice(2);
const file = process.env.DEV_ACCOUNTS ?? `${process.env.DATA_DIR ?? 'data'}/evm-dev-accounts.json`;
const { accounts } = JSON.parse(readFileSync(file, 'utf8'));
const transport = http(process.env.RPC_URL ?? 'http://127.0.0.1:8545');
const wallet = createWalletClient({ account: privateKeyToAccount(accounts[0].privateKey), chain: hardhat, transport });
const client = createPublicClient({ chain: hardhat, transport });
if (parseEther(ether) > 0n) await client.waitForTransactionReceipt({ hash: await wallet.sendTransaction({ to, value: parseEther(ether) }) });
process.stdout.write(`${formatEther(await client.getBalance({ address: to }))} ETH\n`);
