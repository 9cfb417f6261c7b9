import { deriveAddress, verify as verifyXrpl } from 'ripple-keypairs';
import { isHex, verifyMessage } from 'viem';
import { isValidClassicAddress } from 'xrpl';
import { isEvmAddress, parseEvmAddress, toEip55 } from './evm-address.js';

export type Chain = 'evm' | 'xrpl';

export function isValidAddress(chain: Chain, address: string): boolean {
  return chain === 'evm' ? isEvmAddress(address) : isValidClassicAddress(address);
}

/** The form an address is stored and compared in: EIP-55 checksum for EVM, as given for XRPL. */
export function normalizeAddress(chain: Chain, address: string): string {
  return chain === 'evm' ? toEip55(address) : address;
}

/**
 * Checks that `signature` signs `message` with the key of `address`: EIP-191 personal_sign
 * for EVM (an externally owned account; no RPC), and for XRPL a ripple-keypairs signature of
 * the message's UTF-8 bytes by `publicKey`, whose derived address must be `address`.
 */
export async function verifyWalletSignature(input: {
  chain: Chain;
  address: string;
  message: string;
  signature: string;
  publicKey?: string;
}): Promise<boolean> {
  try {
    if (input.chain === 'evm') {
      const address = parseEvmAddress(input.address);
      if (!address || !isHex(input.signature)) return false;
      return await verifyMessage({ address, message: input.message, signature: input.signature });
    }
    if (!input.publicKey || !/^[0-9A-Fa-f]{66}$/.test(input.publicKey) || !/^[0-9A-Fa-f]+$/.test(input.signature)) return false;
    if (deriveAddress(input.publicKey.toUpperCase()) !== input.address) return false;
    return verifyXrpl(Buffer.from(input.message, 'utf8').toString('hex').toUpperCase(), input.signature.toUpperCase(), input.publicKey.toUpperCase());
  } catch {
    return false;
  }
}

/**
 * Verifies a message signed with an XRPL key (ripple-keypairs over the message's UTF-8 bytes).
 * The key must be the address's master key (the address derives from it) or, when the caller
 * read it from the ledger, the account's regular key. `masterDisabled` (the ledger's flag) refuses
 * the master key. The one XRPL message check: wallets, documents signing and custody use it.
 */
export async function verifyXrplMessage(input: { address: string; message: string; signature: string; publicKey: string; regularKey?: string; masterDisabled?: boolean }): Promise<{ valid: boolean; keyKind?: 'master' | 'regular' }> {
  if (!input.masterDisabled && (await verifyWalletSignature({ chain: 'xrpl', address: input.address, message: input.message, signature: input.signature, publicKey: input.publicKey }))) {
    return { valid: true, keyKind: 'master' };
  }
  if (input.regularKey && isValidClassicAddress(input.regularKey)) {
    const byRegular = await verifyWalletSignature({ chain: 'xrpl', address: input.regularKey, message: input.message, signature: input.signature, publicKey: input.publicKey });
    if (byRegular) return { valid: true, keyKind: 'regular' };
  }
  return { valid: false };
}
