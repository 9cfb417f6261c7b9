import { createECDH } from 'node:crypto';
import { deriveAddress } from 'ripple-keypairs';
import { decode, Wallet, type SubmittableTransaction } from 'xrpl';
import type { Hex } from 'viem';
import { SandboxError } from './errors.js';

/** The provider's XRP Ledger networks: in the sandbox both are the service's XRPL ledger (the stand-in by default). */
export const XRPL_NETWORKS = ['XrpLedger', 'XrpLedgerTestnet'];

export const isXrplNetwork = (network: string) => XRPL_NETWORKS.includes(network);

/** The XRPL account of a secp256k1 key: its compressed public key (upper-case hex) and classic address. */
export function xrplAccountOf(privateKey: Hex): { publicKey: string; address: string } {
  const ecdh = createECDH('secp256k1');
  ecdh.setPrivateKey(Buffer.from(privateKey.slice(2), 'hex'));
  const publicKey = ecdh.getPublicKey('hex', 'compressed').toUpperCase();
  return { publicKey, address: deriveAddress(publicKey) };
}

function xrplSigner(privateKey: Hex): Wallet {
  // ripple-keypairs marks a secp256k1 private key with a 00 prefix (33 bytes).
  return new Wallet(xrplAccountOf(privateKey).publicKey, `00${privateKey.slice(2).toUpperCase()}`);
}

/** r and s of a DER-encoded ECDSA signature (the XRPL TxnSignature form). */
function derParts(der: string): { r: Hex; s: Hex } {
  const bytes = Buffer.from(der, 'hex');
  const read = (at: number) => {
    if (bytes[at] !== 0x02) throw new Error('not a DER integer');
    const length = bytes[at + 1]!;
    const value = bytes.subarray(at + 2, at + 2 + length);
    const trimmed = value[0] === 0 ? value.subarray(1) : value;
    return { value: `0x${trimmed.toString('hex').padStart(64, '0')}` as Hex, next: at + 2 + length };
  };
  const r = read(2);
  return { r: r.value, s: read(r.next).value };
}

/**
 * Signs an unsigned serialized XRPL transaction (hex, `0x` optional) of the wallet's account,
 * as the provider does: the account must be the wallet's, nothing may be signed already, and a
 * SigningPubKey, if given, must be the wallet's key. Answers the signed blob, its hash and the
 * signature.
 */
export function signXrplTransaction(privateKey: Hex, hex: string): { blob: string; hash: string; signature: { r: Hex; s: Hex; encoded: string } } {
  const signer = xrplSigner(privateKey);
  let tx: Record<string, unknown>;
  try {
    tx = decode(hex.replace(/^0x/i, '')) as Record<string, unknown>;
  } catch {
    throw new SandboxError(400, 'Bad request: the transaction is not a serialized XRPL transaction');
  }
  if (typeof tx.TransactionType !== 'string') throw new SandboxError(400, 'Bad request: the transaction has no TransactionType');
  if (tx.Account !== signer.classicAddress) throw new SandboxError(400, `Bad request: the transaction's Account is not this wallet (${signer.classicAddress})`);
  if (tx.TxnSignature !== undefined || tx.Signers !== undefined) throw new SandboxError(400, 'Bad request: the transaction is signed already');
  if (typeof tx.SigningPubKey === 'string' && tx.SigningPubKey !== '' && tx.SigningPubKey.toUpperCase() !== signer.publicKey) {
    throw new SandboxError(400, "Bad request: SigningPubKey is not this wallet's key");
  }
  delete tx.SigningPubKey;
  let signed: { tx_blob: string; hash: string };
  try {
    signed = signer.sign(tx as unknown as SubmittableTransaction);
  } catch (error) {
    throw new SandboxError(400, `Bad request: cannot sign: ${error instanceof Error ? error.message.split('\n')[0] : 'invalid transaction'}`);
  }
  const encoded = String((decode(signed.tx_blob) as { TxnSignature: string }).TxnSignature);
  return { blob: signed.tx_blob, hash: signed.hash, signature: { ...derParts(encoded), encoded } };
}
