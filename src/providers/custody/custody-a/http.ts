import type { Clock } from '../../../platform/clock.js';
import {
  CustodyProviderError,
  type CustodyAClient,
  type CustodyTransaction,
  type CustodyTransfer,
  type CustodyVault,
  type CustodyWallet,
} from '../port.js';
import { ACCESS_KEY_HEADER, SIGNATURE_HEADER, signRequest, TIMESTAMP_HEADER } from './signing.js';

const TIMEOUT_MS = 15_000;

export interface CustodyACredentials {
  /** The provider's base URL (the sandbox's, or the real one from `provider configure`). */
  baseUrl: string;
  /** The API access key id. */
  apiKey: string;
  /** The Ed25519 private key (PKCS#8 PEM) requests are signed with. */
  signingKey: string;
}

/**
 * custody-a's HTTP adapter: JSON over HTTPS, every request signed with Ed25519 over
 * timestamp + method + path + body (docs/providers.md). A network failure, timeout or 5xx is
 * `CustodyProviderError` with status 0/5xx (the caller answers 503); a 4xx carries the
 * provider's error code.
 */
export function createCustodyAClient(credentials: CustodyACredentials, deps: { clock: Clock; fetch?: typeof fetch }): CustodyAClient {
  const doFetch = deps.fetch ?? fetch;
  const base = credentials.baseUrl.replace(/\/+$/, '');

  async function call<T>(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<T> {
    const raw = body === undefined ? '' : JSON.stringify(body);
    const timestamp = String(Math.floor(deps.clock.now().getTime() / 1000));
    const headers: Record<string, string> = {
      accept: 'application/json',
      [ACCESS_KEY_HEADER]: credentials.apiKey,
      [TIMESTAMP_HEADER]: timestamp,
      [SIGNATURE_HEADER]: signRequest(credentials.signingKey, timestamp, method, path, raw),
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await doFetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : raw, redirect: 'error', signal: AbortSignal.timeout(TIMEOUT_MS) });
    } catch (error) {
      throw new CustodyProviderError(0, 'UNREACHABLE', `custody-a unreachable: ${(error as Error).message}`);
    }
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (!res.ok) {
      const err = (parsed ?? {}) as { errorCode?: unknown; message?: unknown };
      const code = typeof err.errorCode === 'string' ? err.errorCode : 'UNEXPECTED_RESPONSE';
      const message = typeof err.message === 'string' ? err.message : `custody-a answered ${res.status}`;
      throw new CustodyProviderError(res.status, code, message);
    }
    if (parsed === undefined || typeof parsed !== 'object') throw new CustodyProviderError(502, 'UNEXPECTED_RESPONSE', 'custody-a answered no JSON object');
    return parsed as T;
  }

  const enc = encodeURIComponent;
  const walletPath = (vaultId: string, walletId: string) => `/v2/vaults/${enc(vaultId)}/wallets/${enc(walletId)}`;
  const data = <T>(answer: { data: T }) => answer.data;

  return {
    createVault: (input) => call<CustodyVault>('POST', '/v2/vaults', input),
    createWallet: (vaultId, input) => call<CustodyWallet>('POST', `/v2/vaults/${enc(vaultId)}/wallets`, input),
    updateWallet: (vaultId, walletId, input) => call<CustodyWallet>('PUT', walletPath(vaultId, walletId), input),
    transfer: (vaultId, walletId, input) => call<CustodyTransaction>('POST', `${walletPath(vaultId, walletId)}/transactions/transfer`, input),
    accountSet: (vaultId, walletId, input) => call<CustodyTransaction>('POST', `${walletPath(vaultId, walletId)}/transactions/account-set`, input),
    getTransaction: (vaultId, walletId, transactionId) => call<CustodyTransaction>('GET', `${walletPath(vaultId, walletId)}/transactions/${enc(transactionId)}`),
    async createTransfer(input) {
      return data(
        await call<{ data: CustodyTransfer }>('POST', '/v2/transfers', {
          source: { type: 'WALLET', id: input.sourceWalletId },
          destination: { type: 'ADDRESS', id: input.destinationAddress },
          assetType: input.assetType,
          amount: input.amount,
          idempotentId: input.idempotentId,
          deductFeeFromAmountIfSameType: input.deductFeeFromAmountIfSameType,
          ...(input.transferMemo === undefined ? {} : { transferMemo: input.transferMemo }),
          ...(input.transferAmlQuestionnaire === undefined ? {} : { transferAmlQuestionnaire: input.transferAmlQuestionnaire }),
        }),
      );
    },
    getTransfer: async (transferId) => data(await call<{ data: CustodyTransfer }>('GET', `/v2/transfers/${enc(transferId)}`)),
    webhookPublicKey: async () => (await call<{ publicKey: string }>('GET', '/v2/webhooks/public-key')).publicKey,
  };
}
