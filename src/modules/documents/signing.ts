import type { TypedDataDefinition } from 'viem';
import type { SigningNonceRow } from './table.js';

/** How long a signing message may be signed and submitted (the nonce's life). */
export const SIGNING_TTL_MS = 15 * 60_000;

export const EIP712_DOMAIN_NAME = 'Bastion Documents';
export const EIP712_DOMAIN_VERSION = '1';

export const DOCUMENT_SIGNATURE_TYPES = {
  DocumentSignature: [
    { name: 'tenantId', type: 'string' },
    { name: 'documentId', type: 'string' },
    { name: 'documentSha256', type: 'bytes32' },
    { name: 'signer', type: 'address' },
    { name: 'nonce', type: 'string' },
    { name: 'issuedAt', type: 'string' },
    { name: 'expiresAt', type: 'string' },
  ],
} as const;

/** What a signing request binds; rebuilt from the stored nonce row, never from the client's input. */
export type SigningFacts = Pick<SigningNonceRow, 'tenantId' | 'documentId' | 'documentSha256' | 'address' | 'chain' | 'nonce' | 'issuedAt' | 'expiresAt'>;

/**
 * The canonical text: EIP-191 personal_sign text for EVM, the message an XRPL key signs
 * (as its UTF-8 bytes). One line per fact, in this order, LF line ends, no trailing newline.
 */
export function canonicalMessage(f: SigningFacts): string {
  return [
    'Bastion document signature',
    `Tenant: ${f.tenantId}`,
    `Document: ${f.documentId}`,
    `SHA-256: ${f.documentSha256}`,
    `Signer: ${f.address} (${f.chain})`,
    `Nonce: ${f.nonce}`,
    `Issued at: ${f.issuedAt.toISOString()}`,
    `Expires at: ${f.expiresAt.toISOString()}`,
  ].join('\n');
}

export function messageHex(message: string): string {
  return Buffer.from(message, 'utf8').toString('hex').toUpperCase();
}

/** The EIP-712 typed data of an EVM signing request (domain bound to the chain id). */
export function typedDataFor(f: SigningFacts, chainId: number) {
  return {
    domain: { name: EIP712_DOMAIN_NAME, version: EIP712_DOMAIN_VERSION, chainId },
    types: DOCUMENT_SIGNATURE_TYPES,
    primaryType: 'DocumentSignature' as const,
    message: {
      tenantId: f.tenantId,
      documentId: f.documentId,
      documentSha256: `0x${f.documentSha256}` as `0x${string}`,
      signer: f.address as `0x${string}`,
      nonce: f.nonce,
      issuedAt: f.issuedAt.toISOString(),
      expiresAt: f.expiresAt.toISOString(),
    },
  } satisfies TypedDataDefinition<typeof DOCUMENT_SIGNATURE_TYPES, 'DocumentSignature'> & { domain: { chainId: number } };
}
