// Prints the body {"transaction": "0x02..."} of an unsigned EIP-1559 transfer of ETHER from FROM
// to TO on the local EVM chain, its nonce, gas and fees read from the chain (what
// POST /custody-b/raw-transaction/challenge and /complete take): node docs/walkthrough/evm-tx.mjs
// FROM TO ETHER. Run from the checkout or name it by its path there (it needs viem). RPC_URL
// defaults to http://127.0.0.1:8545 (GET /ready names it: checks.evmChain.rpcUrl).
import process from 'node:process';
import { createPublicClient, http, parseEther, serializeTransaction } from 'viem';
import { hardhat } from 'viem/chains'; // chain id 31337

const [from, to, ether] = process.argv.slice(2);
if (!from || !to || !ether) throw new Error('usage: evm-tx.mjs FROM TO ETHER');
const client = createPublicClient({ chain: hardhat, transport: http(process.env.RPC_URL ?? 'http://127.0.0.1:8545') });
const request = await client.prepareTransactionRequest({ account: from, to, value: parseEther(ether), type: 'eip1559', chain: hardhat });
const transaction = serializeTransaction({
  type: 'eip1559',
  chainId: hardhat.id,
  nonce: request.nonce,
  to,
  value: request.value,
  gas: request.gas,
  maxFeePerGas: request.maxFeePerGas,
  maxPriorityFeePerGas: request.maxPriorityFeePerGas,
});
process.stdout.write(`${JSON.stringify({ transaction })}\n`);
