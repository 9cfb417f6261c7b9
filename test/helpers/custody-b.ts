import { generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { expect } from 'vitest';
import { b64url, keyClientData, signWithKeyCredential } from '../../src/providers/custody-b/custody-b/credentials.js';
import type { Harness } from './harness.js';

/** A user's key credential (what a device or an SDK key signer holds). */
export interface KeyCredential {
  credId: string;
  privateKey: KeyObject;
  privateKeyPem: string;
  publicKeyPem: string;
}

export function newKeyCredential(type: 'p256' | 'ed25519' = 'p256'): KeyCredential {
  const pair = type === 'ed25519' ? generateKeyPairSync('ed25519') : generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return {
    credId: randomBytes(16).toString('base64url'),
    privateKey: pair.privateKey,
    privateKeyPem: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKeyPem: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

/** The attestation of a new key credential over a registration challenge. */
export function keyAttestation(cred: KeyCredential, challenge: string) {
  const clientData = keyClientData('key.create', challenge, 'http://bastion.test');
  const signature = sign(cred.privateKey.asymmetricKeyType === 'ed25519' ? null : 'sha256', clientData, cred.privateKey);
  return {
    credentialKind: 'Key' as const,
    credentialInfo: {
      credId: cred.credId,
      clientData: b64url(clientData),
      attestationData: b64url(JSON.stringify({ publicKey: cred.publicKeyPem, signature: signature.toString('hex'), algorithm: 'SHA256' })),
    },
    credentialName: 'test key',
  };
}

/** A challenge answered by the user's key credential. */
export function signChallenge(cred: KeyCredential, challenge: { challenge: string; challengeIdentifier: string }) {
  return { challengeIdentifier: challenge.challengeIdentifier, firstFactor: signWithKeyCredential(challenge.challenge, cred.credId, cred.privateKeyPem, 'http://bastion.test') };
}

/** Registers a fresh user of the harness tenant with a key credential; answers its token and credential. */
export async function registeredUser(h: Harness, type: 'p256' | 'ed25519' = 'p256') {
  const userId = await h.createUser();
  const token = await h.tokenFor(userId);
  const headers = h.bearerHeaders(token);
  const cred = newKeyCredential(type);
  const challenge = await h.inject({ method: 'GET', url: '/custody-b/users/challenge', headers });
  expect(challenge.statusCode).toBe(200);
  const res = await h.inject({ method: 'POST', url: '/custody-b/users', headers, payload: { firstFactorCredential: keyAttestation(cred, challenge.json().challenge) } });
  expect(res.statusCode).toBe(201);
  return { userId, token, headers, cred };
}

/** Creates a custody-b wallet for a registered user; answers the registry wallet. */
export async function createWallet(h: Harness, user: { headers: Record<string, string>; cred: KeyCredential }, network?: string) {
  const q = network ? `?network=${network}` : '';
  const challenge = await h.inject({ method: 'GET', url: `/custody-b/wallets/challenge${q}`, headers: user.headers });
  expect(challenge.statusCode).toBe(200);
  const res = await h.inject({
    method: 'POST',
    url: '/custody-b/wallets',
    headers: user.headers,
    payload: { ...(network ? { network } : {}), signedChallenge: signChallenge(user.cred, challenge.json()) },
  });
  expect(res.statusCode).toBe(201);
  return res.json() as { walletId: string; address: `0x${string}`; chainId: number; kind: string; details: Record<string, unknown> };
}

export const TYPED_DATA = {
  domain: { name: 'Bastion', version: '1', chainId: 31337, verifyingContract: '0x000000000000000000000000000000000000dEaD' },
  types: {
    Person: [
      { name: 'name', type: 'string' },
      { name: 'wallet', type: 'address' },
    ],
    Mail: [
      { name: 'from', type: 'Person' },
      { name: 'contents', type: 'string' },
    ],
  },
  primaryType: 'Mail',
  message: { from: { name: 'Ada', wallet: '0x000000000000000000000000000000000000bEEF' }, contents: 'hello' },
};

/**
 * A software WebAuthn authenticator (ES256, "none" attestation) for one relying party: what a
 * browser and a platform passkey would answer to a registration and to an assertion.
 */
export async function newPasskey(origin: string) {
  const { createHash } = await import('node:crypto');
  const { isoCBOR } = await import('@simplewebauthn/server/helpers');
  const rpId = new URL(origin).hostname;
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const jwk = publicKey.export({ format: 'jwk' });
  const credId = randomBytes(16);
  const rpIdHash = createHash('sha256').update(rpId).digest();
  let counter = 0;
  const sha256 = (data: Buffer) => createHash('sha256').update(data).digest();
  const u32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(n);
    return b;
  };
  const clientData = (type: string, challenge: string) => Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  const cose = isoCBOR.encode(
    new Map<number, number | Uint8Array>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(jwk.x!, 'base64url')],
      [-3, Buffer.from(jwk.y!, 'base64url')],
    ]),
  );
  return {
    credId: credId.toString('base64url'),
    attest(challenge: string) {
      const idLen = Buffer.alloc(2);
      idLen.writeUInt16BE(credId.length);
      const authData = Buffer.concat([rpIdHash, Buffer.from([0x45]), u32(counter), Buffer.alloc(16), idLen, credId, Buffer.from(cose)]);
      const attestationObject = isoCBOR.encode(new Map<string, unknown>([['fmt', 'none'], ['attStmt', new Map()], ['authData', authData]]) as never);
      return {
        credentialKind: 'Fido2' as const,
        credentialInfo: { credId: credId.toString('base64url'), clientData: b64url(clientData('webauthn.create', challenge)), attestationData: b64url(Buffer.from(attestationObject)) },
      };
    },
    assert(challenge: { challenge: string; challengeIdentifier: string }) {
      counter += 1;
      const authData = Buffer.concat([rpIdHash, Buffer.from([0x05]), u32(counter)]);
      const data = clientData('webauthn.get', challenge.challenge);
      const signature = sign('sha256', Buffer.concat([authData, sha256(data)]), privateKey);
      return {
        challengeIdentifier: challenge.challengeIdentifier,
        firstFactor: {
          kind: 'Fido2' as const,
          credentialAssertion: { credId: credId.toString('base64url'), clientData: b64url(data), signature: b64url(signature), authenticatorData: b64url(authData) },
        },
      };
    },
  };
}
