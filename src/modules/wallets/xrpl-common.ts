import { isValidClassicAddress } from 'xrpl';
import type { XrplAccountInfo, XrplLedgerPort } from '../../providers/xrpl-ledger/port.js';
import { XrplErrors } from './xrpl-errors.js';


export function checkAddress(address: string, field = 'address'): string {
  if (!isValidClassicAddress(address)) throw XrplErrors.addressInvalid(field);
  return address;
}

/** The network name wallets are registered under: `local` for the stand-in, else from the server's network id. */
export function xrplNetworkOf(ledger: XrplLedgerPort): () => Promise<string> {
  let cached: string | undefined;
  return async () => {
    if (cached) return cached;
    if (ledger.isSandbox) return (cached = 'local');
    const { networkId } = await ledger.serverInfo();
    const names: Record<number, string> = { 0: 'mainnet', 1: 'testnet', 2: 'devnet' };
    cached = networkId === undefined ? 'mainnet' : (names[networkId] ?? `network-${networkId}`);
    return cached;
  };
}

/** The account as the API answers it (live from the validated ledger). */
export function accountState(info: XrplAccountInfo | null) {
  if (!info) return { exists: false as const };
  return {
    exists: true as const,
    balanceDrops: info.balanceDrops,
    sequence: info.sequence,
    flags: { ...info.flags } as Record<string, boolean>,
    regularKey: info.regularKey ?? null,
    signerList: info.signerList ?? null,
    ledgerIndex: info.ledgerIndex,
  };
}
export type AccountStateDto = ReturnType<typeof accountState>;
