import { createHash } from 'node:crypto';
import { decodeAccountID } from 'ripple-address-codec';
import { decode, encode, encodeForMultisigning, encodeForSigning } from 'ripple-binary-codec';
import { deriveAddress, verify } from 'ripple-keypairs';
import { isValidClassicAddress } from 'xrpl';

/** A decoded transaction in rippled's JSON form. */
export type TxJson = Record<string, unknown> & { TransactionType: string; Account: string };
export interface TxSigner {
  Account: string;
  SigningPubKey: string;
  TxnSignature: string;
}

const PUBLIC_KEY = /^(02|03)[0-9A-F]{64}$|^ED[0-9A-F]{64}$/;
const HEX = /^(?:[0-9A-F]{2})+$/;

export function signersOf(tx: TxJson): TxSigner[] {
  const signers = tx.Signers as { Signer: TxSigner }[] | undefined;
  return Array.isArray(signers) ? signers.map((s) => s.Signer) : [];
}

function verifies(data: string, signature: unknown, publicKey: string): boolean {
  if (typeof signature !== 'string' || !HEX.test(signature)) return false;
  try {
    return verify(data, signature, publicKey);
  } catch {
    return false;
  }
}

/**
 * The signature checks that need no ledger (rippled's "local checks"): a single signature over
 * the signing data by SigningPubKey, or, when Signers is present (and SigningPubKey empty), each
 * signer's signature over the multi-signing data for its account, signers sorted by account id,
 * no duplicates, none the transaction's own account. `malformed` is a structural fault
 * (rippled's temBAD_SIGNATURE / temMALFORMED), `invalid` a signature that does not verify.
 */
export function checkTransactionSignatures(tx: TxJson): { ok: true } | { ok: false; fault: 'malformed' | 'invalid'; reason: string } {
  const pubKey = typeof tx.SigningPubKey === 'string' ? tx.SigningPubKey : '';
  if (tx.Signers !== undefined) {
    const signers = signersOf(tx);
    if (pubKey !== '' || tx.TxnSignature !== undefined) return { ok: false, fault: 'malformed', reason: 'A multi-signed transaction has an empty SigningPubKey and no TxnSignature.' };
    if (signers.length < 1 || signers.length > 32) return { ok: false, fault: 'malformed', reason: 'Signers must hold 1 to 32 signatures.' };
    let previous: Buffer | undefined;
    for (const signer of signers) {
      if (!signer || typeof signer.Account !== 'string' || !PUBLIC_KEY.test(signer.SigningPubKey ?? '')) return { ok: false, fault: 'malformed', reason: 'A signer has no account or no valid public key.' };
      if (signer.Account === tx.Account) return { ok: false, fault: 'malformed', reason: 'An account may not sign for itself in Signers.' };
      const id = Buffer.from(decodeAccountID(signer.Account));
      if (previous && Buffer.compare(previous, id) >= 0) return { ok: false, fault: 'invalid', reason: 'Unsorted Signers array.' };
      previous = id;
      if (!verifies(encodeForMultisigning(tx, signer.Account), signer.TxnSignature, signer.SigningPubKey)) return { ok: false, fault: 'invalid', reason: 'Invalid signature.' };
    }
    return { ok: true };
  }
  if (!PUBLIC_KEY.test(pubKey)) return { ok: false, fault: 'malformed', reason: 'SigningPubKey is not a public key.' };
  if (!verifies(encodeForSigning(tx), tx.TxnSignature, pubKey)) return { ok: false, fault: 'invalid', reason: 'Invalid signature.' };
  return { ok: true };
}

/** The hash rippled gives a signed transaction: SHA-512Half of the prefix "TXN\0" and the blob. */
export function signedTransactionHash(blobHex: string): string {
  const digest = createHash('sha512').update(Buffer.from('54584E00', 'hex')).update(Buffer.from(blobHex, 'hex')).digest();
  return digest.subarray(0, 32).toString('hex').toUpperCase();
}

export type InspectedBlob =
  | { ok: true; tx: TxJson; hash: string; signingAccounts: string[] }
  | { ok: false; reason: 'not_hex' | 'not_decodable' | 'not_canonical' | 'not_transaction' | 'unsigned'; message: string }
  | { ok: false; reason: 'bad_signature'; fault: 'malformed' | 'invalid'; message: string; tx: TxJson; hash: string };

/**
 * Decodes a signed transaction blob and verifies its signatures locally, before anything is
 * sent: the blob must be canonical hex, a transaction, and signed (single or multi). Returns the
 * transaction, its hash and the accounts whose keys signed (derived from the public keys; the
 * ledger decides whether those keys may sign for the account).
 */
export function inspectSignedBlob(blob: string): InspectedBlob {
  if (typeof blob !== 'string' || !HEX.test(blob.toUpperCase())) return { ok: false, reason: 'not_hex', message: 'The blob is not hexadecimal.' };
  const upper = blob.toUpperCase();
  let tx: TxJson;
  try {
    tx = decode(upper) as TxJson;
    if (encode(tx).toUpperCase() !== upper) return { ok: false, reason: 'not_canonical', message: 'The blob is not in canonical form.' };
  } catch {
    return { ok: false, reason: 'not_decodable', message: 'The blob does not decode as an XRPL transaction.' };
  }
  if (typeof tx.TransactionType !== 'string' || typeof tx.Account !== 'string' || !isValidClassicAddress(tx.Account)) {
    return { ok: false, reason: 'not_transaction', message: 'The blob is not a transaction.' };
  }
  if (tx.Signers === undefined && (tx.TxnSignature === undefined || !tx.SigningPubKey)) return { ok: false, reason: 'unsigned', message: 'The transaction is not signed.' };
  const check = checkTransactionSignatures(tx);
  if (!check.ok) return { ok: false, reason: 'bad_signature', fault: check.fault, message: check.reason, tx, hash: signedTransactionHash(upper) };
  const signers = signersOf(tx);
  const signingAccounts = signers.length ? signers.map((s) => s.Account) : [deriveAddress(tx.SigningPubKey as string)];
  return { ok: true, tx, hash: signedTransactionHash(upper), signingAccounts };
}

/** The one XRPL message-signature check lives with the other wallet signatures (platform/crypto). */
export { verifyXrplMessage } from '../../platform/crypto/wallet-signatures.js';
