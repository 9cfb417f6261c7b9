// Signs the EIP-712 message of GET /tenant-documents/{id}/sign?chainType=evm (stdin) with the key
// in PRIVATE_KEY and prints the body of POST /tenant-documents/{id}/sign. Run from the checkout
// (it needs viem).
import process from 'node:process';
import { privateKeyToAccount } from 'viem/accounts';

let input = '';
for await (const chunk of process.stdin) input += chunk;
const { typedData, nonce, address } = JSON.parse(input);
const account = privateKeyToAccount(process.env.PRIVATE_KEY);
process.stdout.write(JSON.stringify({ address, nonce, signature: await account.signTypedData(typedData) }) + '\n');
