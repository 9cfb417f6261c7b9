import { XrplLedgerError, type XrplLedgerPort } from './port.js';

/**
 * Submits a signed XRPL blob that was stored before it was sent (the resumable half of a value
 * move): `sent` when the ledger kept it (applied, queued, a tec that takes the fee, or it had it
 * already), `replaced` when its sequence went to another transaction (it can never apply),
 * `refused` with the engine result when the ledger refuses the transaction itself, `retry` when
 * the ledger did not answer.
 */
export async function broadcastSignedXrpl(ledger: XrplLedgerPort, blob: string, hash: string): Promise<'sent' | 'replaced' | { refused: string } | { retry: string }> {
  let result;
  try {
    result = await ledger.submit(blob);
  } catch (error) {
    if (error instanceof XrplLedgerError && error.kind === 'invalid_transaction') return { refused: error.message };
    return { retry: error instanceof Error ? error.message : String(error) };
  }
  const engine = result.engineResult;
  if (result.accepted || engine.startsWith('tec') || engine.startsWith('ter') || engine === 'tefALREADY') return 'sent';
  if (engine === 'tefPAST_SEQ') {
    const found = await ledger.lookupTransaction(hash).catch(() => undefined);
    return found?.found ? 'sent' : 'replaced';
  }
  return { refused: `${engine} ${result.engineResultMessage}`.trim() };
}
