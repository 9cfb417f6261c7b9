import { BaseError, type Hex } from 'viem';
import type { EvmChainPort } from './port.js';

/**
 * Sends a signed EVM transaction that was stored before it was sent (the resumable half of a
 * value move): `sent` when the chain has it (now, or already: a resend of the same bytes is
 * the same transaction), `replaced` when its nonce went to another transaction (it can never be
 * mined), `refused` when the node answered with an error (the transaction itself is refused:
 * funds, gas, chain), `retry` when the node did not answer.
 */
export async function broadcastSignedEvm(chain: EvmChainPort, raw: Hex, hash: Hex): Promise<'sent' | 'replaced' | { refused: string } | { retry: string }> {
  try {
    await chain.publicClient.sendRawTransaction({ serializedTransaction: raw });
    return 'sent';
  } catch (error) {
    const known = await chain.publicClient.getTransaction({ hash }).then(
      () => true,
      () => false,
    );
    if (known) return 'sent';
    const message = error instanceof Error ? ((error as { details?: string }).details ?? error.message) : String(error);
    if (/already known/i.test(message)) return 'sent';
    if (/nonce too low|nonce.*(lower|used)/i.test(message)) return 'replaced';
    const line = message.split('\n')[0]!;
    const answered = error instanceof BaseError && error.walk((e) => typeof (e as { code?: unknown }).code === 'number') !== null;
    return answered ? { refused: line } : { retry: line };
  }
}
