// The user's cold XRPL wallet, whose key never reaches Bastion. Run from the checkout (it needs
// xrpl and ripple-keypairs); the key is kept in cold.json in the current directory.
//   new     prints a new wallet {address, seed}         (node cold.mjs new > cold.json)
//   prove   signs the challenge of POST /non-custodian-xrpl/wallet/challenge/{address} (stdin)
//           and prints the body of POST /non-custodian-xrpl/wallet
//   cosign  adds the cold wallet's signature to what POST /non-custodian-xrpl/sign-transaction
//           answered (stdin) and prints the body of POST /non-custodian-xrpl/tx-submit
import { Buffer } from 'node:buffer';
import process from 'node:process';
import { readFileSync } from 'node:fs';
import { sign } from 'ripple-keypairs';
import { Wallet } from 'xrpl';

let input = '';
if (process.argv[2] !== 'new') for await (const chunk of process.stdin) input += chunk;
const cold = () => Wallet.fromSeed(JSON.parse(readFileSync('cold.json', 'utf8')).seed);
const out = {
  new: () => {
    const w = Wallet.generate();
    return { address: w.classicAddress, seed: w.seed };
  },
  prove: () => {
    const { challenge, message } = JSON.parse(input);
    const w = cold();
    return { address: w.classicAddress, publicKey: w.publicKey, challenge, signature: sign(Buffer.from(message).toString('hex'), w.privateKey) };
  },
  cosign: () => {
    const { txBlob, transaction } = JSON.parse(input);
    return { txBlobs: [txBlob, cold().sign(transaction, true).tx_blob] };
  },
}[process.argv[2]]();
process.stdout.write(JSON.stringify(out) + '\n');
