import { createPublicKey, verify as verifySignature, type KeyObject } from 'node:crypto';
import type { CredentialAssertion, CredentialAttestation } from '../../providers/custody-b/port.js';

/** Why a credential was refused (answered 401 by the sandbox). */
export class CredentialRejected extends Error {}

/** Where WebAuthn passkeys are bound: the relying party id and origin of the app. */
export interface RelyingParty {
  id: string;
  origin: string;
}

export interface NewCredential {
  credId: string;
  kind: 'Key' | 'Fido2';
  publicKey: string;
  counter: number;
}

const fromB64url = (value: unknown, what: string): Buffer => {
  if (typeof value !== 'string' || !/^[A-Za-z0-9_-]*={0,2}$/.test(value) || value.length === 0) throw new CredentialRejected(`${what} is not base64url`);
  return Buffer.from(value, 'base64url');
};

/** Hex (the provider's attestation form) or base64url signature bytes. */
const signatureBytes = (value: unknown): Buffer => {
  if (typeof value === 'string' && /^(?:[0-9a-fA-F]{2})+$/.test(value)) return Buffer.from(value, 'hex');
  return fromB64url(value, 'signature');
};

/** Client data of a key credential: JSON `{type, challenge, origin?, crossOrigin?}`. */
function checkKeyClientData(raw: Buffer, type: 'key.get' | 'key.create', challenge: string): void {
  let data: unknown;
  try {
    data = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new CredentialRejected('clientData is not JSON');
  }
  if (typeof data !== 'object' || data === null) throw new CredentialRejected('clientData is not an object');
  const c = data as Record<string, unknown>;
  if (c.type !== type) throw new CredentialRejected(`clientData.type is not ${type}`);
  if (c.challenge !== challenge) throw new CredentialRejected('clientData.challenge is not the challenge issued');
  if (c.origin !== undefined && typeof c.origin !== 'string') throw new CredentialRejected('clientData.origin is not a string');
  if (c.crossOrigin !== undefined && c.crossOrigin !== false) throw new CredentialRejected('cross-origin signing is not allowed');
}

/** Verifies with a P-256 (SHA-256; DER or raw r||s) or Ed25519 public key. */
function keySignatureValid(key: KeyObject, data: Buffer, signature: Buffer): boolean {
  try {
    if (key.asymmetricKeyType === 'ed25519') return verifySignature(null, data, key, signature);
    if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') return false;
    if (verifySignature('sha256', data, key, signature)) return true;
    return signature.length === 64 && verifySignature('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, signature);
  } catch {
    return false;
  }
}

function keyOf(pem: unknown): KeyObject {
  try {
    if (typeof pem !== 'string') throw new Error('no key');
    const key = createPublicKey(pem);
    if (key.asymmetricKeyType === 'ed25519' || (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1')) return key;
  } catch {
    // answered below
  }
  throw new CredentialRejected('the public key is not an ECDSA P-256 or Ed25519 key in PEM');
}

/**
 * A new credential signed the registration challenge. Key: `attestationData` is base64url JSON
 * `{publicKey (PEM), signature (over the client data), algorithm?}`. Fido2: a WebAuthn
 * attestation (clientDataJSON, attestationObject), verified by @simplewebauthn/server.
 */
export async function verifyAttestation(att: CredentialAttestation, challenge: string, rp: RelyingParty): Promise<NewCredential> {
  const info = att.credentialInfo;
  const clientData = fromB64url(info.clientData, 'clientData');
  if (att.credentialKind === 'Key') {
    checkKeyClientData(clientData, 'key.create', challenge);
    let attestation: Record<string, unknown>;
    try {
      attestation = JSON.parse(fromB64url(info.attestationData, 'attestationData').toString('utf8')) as Record<string, unknown>;
    } catch {
      throw new CredentialRejected('attestationData is not JSON');
    }
    if (typeof attestation !== 'object' || attestation === null) throw new CredentialRejected('attestationData is not an object');
    const key = keyOf(attestation.publicKey);
    if (!keySignatureValid(key, clientData, signatureBytes(attestation.signature))) throw new CredentialRejected('the attestation signature does not verify');
    return { credId: info.credId, kind: 'Key', publicKey: key.export({ type: 'spki', format: 'pem' }).toString(), counter: 0 };
  }
  try {
    // Loaded for the first passkey only (about 16 MiB): key credentials never need it.
    const { verifyRegistrationResponse } = await import('@simplewebauthn/server');
    const result = await verifyRegistrationResponse({
      response: {
        id: info.credId,
        rawId: info.credId,
        type: 'public-key',
        clientExtensionResults: {},
        response: { clientDataJSON: info.clientData, attestationObject: info.attestationData },
      },
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: false,
    });
    if (!result.verified) throw new CredentialRejected('the WebAuthn attestation does not verify');
    const cred = result.registrationInfo.credential;
    return { credId: cred.id, kind: 'Fido2', publicKey: Buffer.from(cred.publicKey).toString('base64url'), counter: cred.counter };
  } catch (error) {
    if (error instanceof CredentialRejected) throw error;
    throw new CredentialRejected(`the WebAuthn attestation does not verify: ${error instanceof Error ? error.message : 'invalid'}`);
  }
}

/** An assertion by a registered credential over the challenge; answers the new counter. */
export async function verifyAssertion(
  assertion: CredentialAssertion,
  challenge: string,
  stored: { kind: 'Key' | 'Fido2'; credId: string; publicKey: string; counter: number },
  rp: RelyingParty,
): Promise<number> {
  if (assertion.kind !== stored.kind) throw new CredentialRejected('the assertion kind is not the credential kind');
  const a = assertion.credentialAssertion;
  if (assertion.kind === 'Key') {
    const clientData = fromB64url(a.clientData, 'clientData');
    checkKeyClientData(clientData, 'key.get', challenge);
    if (!keySignatureValid(keyOf(stored.publicKey), clientData, signatureBytes(a.signature))) throw new CredentialRejected('the signature does not verify');
    return stored.counter;
  }
  try {
    const fido = assertion.credentialAssertion;
    const { verifyAuthenticationResponse } = await import('@simplewebauthn/server');
    const result = await verifyAuthenticationResponse({
      response: {
        id: fido.credId,
        rawId: fido.credId,
        type: 'public-key',
        clientExtensionResults: {},
        response: { clientDataJSON: fido.clientData, authenticatorData: fido.authenticatorData, signature: fido.signature, userHandle: fido.userHandle },
      },
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      credential: { id: stored.credId, publicKey: Buffer.from(stored.publicKey, 'base64url'), counter: stored.counter },
      requireUserVerification: false,
    });
    if (!result.verified) throw new CredentialRejected('the WebAuthn assertion does not verify');
    return result.authenticationInfo.newCounter;
  } catch (error) {
    if (error instanceof CredentialRejected) throw error;
    throw new CredentialRejected(`the WebAuthn assertion does not verify: ${error instanceof Error ? error.message : 'invalid'}`);
  }
}
