import { deriveAddress, deriveKeypair, generateSeed, sign as signXrpl } from 'ripple-keypairs';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { classicAddressToXAddress } from 'xrpl';
import { isValidAddress, normalizeAddress, verifyWalletSignature, verifyXrplMessage } from '../../src/platform/crypto/wallet-signatures.js';

/** A fixed XRPL key (seed from fixed entropy): the same address on every run. */
function xrplKey(fill: number, algorithm: 'ecdsa-secp256k1' | 'ed25519') {
  const seed = generateSeed({ entropy: new Uint8Array(16).fill(fill), algorithm });
  const keypair = deriveKeypair(seed);
  return { ...keypair, address: deriveAddress(keypair.publicKey) };
}
const signText = (message: string, privateKey: string) => signXrpl(Buffer.from(message, 'utf8').toString('hex').toUpperCase(), privateKey);

const SECP = xrplKey(1, 'ecdsa-secp256k1');
const ED = xrplKey(2, 'ed25519');
const OTHER = xrplKey(3, 'ecdsa-secp256k1');
const MESSAGE = 'Bastion wallet ownership: nonce 1f2e3d, café ✓';

// Hardhat's first development account: a published key with a known address.
const EVM = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');

describe('XRPL addresses', () => {
  it('derives the fixed keys to the known classic addresses', () => {
    expect(SECP.address).toBe('rMPrYipfRHJryWfwYARAwhsVGvHwpUDjgA');
    expect(ED.address).toBe('rpjfAeE3DeeHPFnN2PgGFW5YxnZFAjrEyN');
  });

  it.each([
    ['a secp256k1 classic address', SECP.address, true],
    ['an ed25519 classic address', ED.address, true],
    ['the genesis account', 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh', true],
    ['an X-address (not accepted: classic only)', classicAddressToXAddress(SECP.address, false, false), false],
    ['a classic address with one character changed (checksum)', `${SECP.address.slice(0, -1)}B`, false],
    ['a lower-cased classic address', SECP.address.toLowerCase(), false],
    ['an address with a leading space', ` ${SECP.address}`, false],
    ['an EVM address', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', false],
    ['empty', '', false],
  ])('%s: %s -> %s', (_what, address, valid) => {
    expect(isValidAddress('xrpl', address)).toBe(valid);
  });

  it('stores XRPL addresses as given and EVM addresses in their EIP-55 form', () => {
    expect(normalizeAddress('xrpl', SECP.address)).toBe(SECP.address);
    expect(normalizeAddress('evm', EVM.address.toLowerCase())).toBe(EVM.address);
    expect(isValidAddress('evm', EVM.address.toLowerCase())).toBe(true);
  });
});

describe('verifyWalletSignature (XRPL)', () => {
  it.each([
    ['secp256k1', SECP],
    ['ed25519', ED],
  ])('accepts a %s signature of the message by the address key, in either hex case', async (_alg, key) => {
    const signature = signText(MESSAGE, key.privateKey);
    const input = { chain: 'xrpl' as const, address: key.address, message: MESSAGE, signature, publicKey: key.publicKey };
    await expect(verifyWalletSignature(input)).resolves.toBe(true);
    await expect(verifyWalletSignature({ ...input, signature: signature.toLowerCase(), publicKey: key.publicKey.toLowerCase() })).resolves.toBe(true);
  });

  const good = { chain: 'xrpl' as const, address: SECP.address, message: MESSAGE, signature: signText(MESSAGE, SECP.privateKey), publicKey: SECP.publicKey };
  it.each<[string, Partial<typeof good> & { publicKey?: string }]>([
    ['another message', { message: `${MESSAGE}.` }],
    ['a signature by another key, with that key', { signature: signText(MESSAGE, OTHER.privateKey), publicKey: OTHER.publicKey }],
    ['a signature by another key, with the address key', { signature: signText(MESSAGE, OTHER.privateKey) }],
    ["the right signature but another address's key", { publicKey: OTHER.publicKey }],
    ['another address', { address: OTHER.address }],
    ['the X-address of the signer', { address: classicAddressToXAddress(SECP.address, false, false) }],
    ['no public key', { publicKey: undefined }],
    ['a public key of 64 hex digits', { publicKey: SECP.publicKey.slice(2) }],
    ['a public key that is not hex', { publicKey: `${SECP.publicKey.slice(0, -1)}Z` }],
    ['a public key that is not a curve point', { publicKey: `02${'F'.repeat(64)}` }],
    ['a signature that is not hex', { signature: 'not-hex' }],
    ['an empty signature', { signature: '' }],
    ['a truncated signature', { signature: signText(MESSAGE, SECP.privateKey).slice(0, -2) }],
    ['an EVM-style 0x signature', { signature: `0x${signText(MESSAGE, SECP.privateKey)}` }],
  ])('refuses %s', async (_what, change) => {
    await expect(verifyWalletSignature({ ...good, ...change })).resolves.toBe(false);
  });
});

describe('verifyXrplMessage (master and regular keys)', () => {
  const byOther = signText(MESSAGE, OTHER.privateKey);
  const bySecp = signText(MESSAGE, SECP.privateKey);
  it.each<[string, Parameters<typeof verifyXrplMessage>[0], Awaited<ReturnType<typeof verifyXrplMessage>>]>([
    ['the master key', { address: SECP.address, message: MESSAGE, signature: bySecp, publicKey: SECP.publicKey }, { valid: true, keyKind: 'master' }],
    ['the master key while the ledger disables it', { address: SECP.address, message: MESSAGE, signature: bySecp, publicKey: SECP.publicKey, masterDisabled: true }, { valid: false }],
    ['the regular key the ledger names', { address: SECP.address, message: MESSAGE, signature: byOther, publicKey: OTHER.publicKey, regularKey: OTHER.address }, { valid: true, keyKind: 'regular' }],
    ['the regular key with the master disabled', { address: SECP.address, message: MESSAGE, signature: byOther, publicKey: OTHER.publicKey, regularKey: OTHER.address, masterDisabled: true }, { valid: true, keyKind: 'regular' }],
    ['a key the ledger does not name', { address: SECP.address, message: MESSAGE, signature: byOther, publicKey: OTHER.publicKey }, { valid: false }],
    ['a key other than the regular key named', { address: SECP.address, message: MESSAGE, signature: byOther, publicKey: OTHER.publicKey, regularKey: ED.address }, { valid: false }],
    ['a regular key that is not an address', { address: SECP.address, message: MESSAGE, signature: byOther, publicKey: OTHER.publicKey, regularKey: 'nonsense' }, { valid: false }],
  ])('%s', async (_what, input, answer) => {
    await expect(verifyXrplMessage(input)).resolves.toEqual(answer);
  });
});

describe('verifyWalletSignature (EVM, EIP-191)', () => {
  it('knows the development account address', () => {
    expect(EVM.address).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
  });

  it('accepts a personal_sign signature by the address key, the address in any accepted form', async () => {
    const signature = await EVM.signMessage({ message: MESSAGE });
    for (const address of [EVM.address, EVM.address.toLowerCase()]) {
      await expect(verifyWalletSignature({ chain: 'evm', address, message: MESSAGE, signature })).resolves.toBe(true);
    }
  });

  it.each<[string, (signature: string) => { address?: string; message?: string; signature?: string }]>([
    ['another message', () => ({ message: `${MESSAGE}.` })],
    ['another address', () => ({ address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' })],
    ['the address with a wrong checksum', () => ({ address: EVM.address.replace('F', 'f') })],
    ['a signature without 0x', (signature) => ({ signature: signature.slice(2) })],
    ['a truncated signature', (signature) => ({ signature: signature.slice(0, -2) })],
    ['a signature of zeros', () => ({ signature: `0x${'0'.repeat(130)}` })],
    ['an empty signature', () => ({ signature: '' })],
  ])('refuses %s', async (_what, change) => {
    const signature = await EVM.signMessage({ message: MESSAGE });
    await expect(verifyWalletSignature({ chain: 'evm', address: EVM.address, message: MESSAGE, signature, ...change(signature) })).resolves.toBe(false);
  });
});
