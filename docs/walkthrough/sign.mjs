// Signs the Sign-In with Ethereum challenge of GET /evm-eoas/challenge (stdin) with the key in
// PRIVATE_KEY and prints the body of POST /evm-eoas. Run from the checkout (it needs viem).
import process from 'node:process';
import { createSiweMessage } from 'viem/siwe';
import { privateKeyToAccount } from 'viem/accounts';

let input = '';
for await (const chunk of process.stdin) input += chunk;
const { message: _ready, issuedAt, expirationTime, ...fields } = JSON.parse(input);
const account = privateKeyToAccount(process.env.PRIVATE_KEY);
const message = createSiweMessage({ ...fields, address: account.address, issuedAt: new Date(issuedAt), expirationTime: new Date(expirationTime) });
process.stdout.write(JSON.stringify({ message, signature: await account.signMessage({ message }) }) + '\n');
