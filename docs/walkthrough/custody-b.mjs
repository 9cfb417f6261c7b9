// The user's own key credential at custody-b (what an app keeps on the person's device), an
// ECDSA P-256 key kept in custody-b-key.json in the current directory. Node's crypto only.
//   new               prints a new credential {credId, privateKey (PEM), publicKey (PEM)}
//                     (node custody-b.mjs new > custody-b-key.json)
//   register          signs the challenge of GET /custody-b/users/challenge (stdin) and prints
//                     the body of POST /custody-b/users
//   sign [BODY]       signs a user-action challenge (stdin: what .../challenge answered) and
//                     prints BODY (JSON, default {}) with the signedChallenge added: the body of
//                     the request that completes the action
import { Buffer } from 'node:buffer';
import process from 'node:process';
import { createPrivateKey, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';

const b64url = (data) => Buffer.from(data).toString('base64url');
let input = '';
if (process.argv[2] !== 'new') for await (const chunk of process.stdin) input += chunk;
const credential = () => JSON.parse(readFileSync('custody-b-key.json', 'utf8'));
// The client data a key credential signs: the signature covers these bytes (SHA-256).
const clientData = (type, challenge) => Buffer.from(JSON.stringify({ type, challenge }));

const out = {
  new: () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    return {
      credId: randomBytes(16).toString('base64url'),
      privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }),
      publicKey: publicKey.export({ type: 'spki', format: 'pem' }),
    };
  },
  register: () => {
    const { challenge } = JSON.parse(input);
    const { credId, privateKey, publicKey } = credential();
    const data = clientData('key.create', challenge);
    const signature = sign('sha256', data, createPrivateKey(privateKey)).toString('hex');
    return {
      firstFactorCredential: {
        credentialKind: 'Key',
        credentialInfo: { credId, clientData: b64url(data), attestationData: b64url(JSON.stringify({ publicKey, signature, algorithm: 'SHA256' })) },
      },
    };
  },
  sign: () => {
    const { challenge, challengeIdentifier } = JSON.parse(input);
    const { credId, privateKey } = credential();
    const data = clientData('key.get', challenge);
    const signature = sign('sha256', data, createPrivateKey(privateKey));
    const firstFactor = { kind: 'Key', credentialAssertion: { credId, clientData: b64url(data), signature: b64url(signature) } };
    return { ...JSON.parse(process.argv[3] ?? '{}'), signedChallenge: { challengeIdentifier, firstFactor } };
  },
}[process.argv[2]]();
process.stdout.write(JSON.stringify(out) + '\n');
