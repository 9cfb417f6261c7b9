import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

const b64u = (bytes: Uint8Array | Buffer) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest();

/** Flags of authenticator data (WebAuthn §6.1). */
const UP = 0x01;
const UV = 0x04;
const BE = 0x08;
const BS = 0x10;
const AT = 0x40;

/**
 * A software WebAuthn authenticator for API tests (written from the WebAuthn spec, not with the
 * service's code): one ES256 (P-256) credential, "none" attestation, a signature counter the test
 * controls. The browser test uses Chromium's virtual authenticator instead.
 */
export class SoftAuthenticator {
  readonly credentialId = randomBytes(16);
  readonly privateKey: KeyObject;
  private readonly jwk: { x: string; y: string };
  counter = 0;
  userHandle?: string;
  /** Report user verification (UV); false makes a response the service must refuse. */
  userVerified = true;
  backedUp = false;

  constructor(readonly origin: string, readonly rpId = new URL(origin).hostname) {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = privateKey;
    const jwk = publicKey.export({ format: 'jwk' });
    this.jwk = { x: jwk.x!, y: jwk.y!, };
  }

  get id(): string {
    return b64u(this.credentialId);
  }

  private flags(extra: number): number {
    return UP | (this.userVerified ? UV : 0) | (this.backedUp ? BE | BS : 0) | extra;
  }

  private clientData(type: string, challenge: string, origin = this.origin): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  private counterBytes(): Buffer {
    const c = Buffer.alloc(4);
    c.writeUInt32BE(this.counter);
    return c;
  }

  /** navigator.credentials.create's answer, as RegistrationResponseJSON. */
  register(options: { challenge: string; rp: { id?: string }; user: { id: string } }, overrides: { origin?: string; rpId?: string } = {}) {
    this.userHandle = options.user.id;
    const cose = isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, new Uint8Array(Buffer.from(this.jwk.x, 'base64url'))],
        [-3, new Uint8Array(Buffer.from(this.jwk.y, 'base64url'))],
      ]),
    );
    const idLen = Buffer.alloc(2);
    idLen.writeUInt16BE(this.credentialId.length);
    const authData = Buffer.concat([
      sha256(overrides.rpId ?? this.rpId),
      Buffer.from([this.flags(AT)]),
      this.counterBytes(),
      Buffer.alloc(16),
      idLen,
      this.credentialId,
      Buffer.from(cose),
    ]);
    const attestationObject = isoCBOR.encode(new Map<string, unknown>([['fmt', 'none'], ['attStmt', new Map()], ['authData', new Uint8Array(authData)]]) as never);
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key' as const,
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64u(this.clientData('webauthn.create', options.challenge, overrides.origin)),
        attestationObject: b64u(attestationObject),
        transports: ['internal'],
      },
    };
  }

  /** navigator.credentials.get's answer, as AuthenticationResponseJSON; the counter advances by `step`. */
  assert(options: { challenge: string }, overrides: { origin?: string; step?: number } = {}) {
    this.counter += overrides.step ?? 1;
    const authData = Buffer.concat([sha256(this.rpId), Buffer.from([this.flags(0)]), this.counterBytes()]);
    const clientDataJSON = this.clientData('webauthn.get', options.challenge, overrides.origin);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), this.privateKey);
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key' as const,
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64u(clientDataJSON),
        authenticatorData: b64u(authData),
        signature: b64u(signature),
        ...(this.userHandle ? { userHandle: this.userHandle } : {}),
      },
    };
  }
}
