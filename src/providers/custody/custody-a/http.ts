import { Type, type TSchema } from 'typebox';
import type { Clock } from '../../../platform/clock.js';
import { providerAnswer, type ProviderAnswer } from '../../../platform/http/provider-answer.js';
import { ProviderError } from '../../../platform/providers/errors.js';
import type { CustodyAClient } from '../port.js';
import { ACCESS_KEY_HEADER, SIGNATURE_HEADER, signRequest, TIMESTAMP_HEADER } from './signing.js';

const TIMEOUT_MS = 15_000;

// What Bastion reads of custody-a's answers (docs/providers.md): checked before use, so an
// answer of another shape is a provider error (502), never a crash or a row of nulls.
const Id = Type.String({ minLength: 1, maxLength: 200 });
const Text = Type.String({ maxLength: 2000 });
const OptText = Type.Union([Text, Type.Null()]);
const Time = Type.String({ minLength: 1, maxLength: 64 });
const TX_STATUSES = ['REQUESTED', 'APPROVED', 'COMPILED', 'SIGNED', 'PUBLISHED', 'CONFIRMATION_PENDING', 'CONFIRMED', 'REJECTED', 'FAILED'] as const;
const oneOf = (values: readonly string[]) => Type.Union(values.map((v) => Type.Literal(v)));
const VaultAnswer = providerAnswer('custody-a vault', Type.Object({ id: Id, name: Text, createdAt: Time }));
const WalletAnswer = providerAnswer(
  'custody-a wallet',
  Type.Object({
    id: Id, vaultId: Id, blockchain: oneOf(['ETHEREUM', 'XRPL']), network: Type.String({ minLength: 1, maxLength: 64 }),
    address: Type.String({ minLength: 1, maxLength: 100 }), name: Text, description: OptText, createdAt: Time,
  }),
);
const Transaction = Type.Object({
  id: Id, externalId: Text, vaultId: Id, walletId: Id, type: oneOf(['TRANSFER', 'ACCOUNT_SET']), status: oneOf(TX_STATUSES),
  symbol: OptText, qty: OptText, destinationAddress: OptText, contract: OptText, hash: OptText, failureReason: OptText, createdAt: Time, updatedAt: Time,
});
const TransactionAnswer = providerAnswer('custody-a transaction', Transaction);
const TransferAnswer = providerAnswer(
  'custody-a transfer',
  Type.Object({
    data: Type.Object({
      transferId: Id, status: oneOf(['QUEUED', 'IN_PROGRESS', 'COMPLETED', 'FAILED']), assetType: Text, amount: Text,
      blockchainTxId: OptText, failureReason: OptText, createdAt: Time, updatedAt: Time,
    }),
  }),
);
const PublicKeyAnswer = providerAnswer('custody-a webhook key', Type.Object({ publicKey: Type.String({ minLength: 1, maxLength: 5000 }) }));

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
 * `ProviderError` unreachable (503); a 4xx is refused, unauthorized or not found with the
 * provider's error code.
 */
export function createCustodyAClient(credentials: CustodyACredentials, deps: { clock: Clock; fetch?: typeof fetch }): CustodyAClient {
  const doFetch = deps.fetch ?? fetch;
  const base = credentials.baseUrl.replace(/\/+$/, '');

  async function call<T extends TSchema>(shape: ProviderAnswer<T>, method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown) {
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
      throw new ProviderError('unreachable', `custody-a unreachable: ${(error as Error).message}`);
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
      throw ProviderError.fromStatus(res.status, `custody-a answered ${res.status} ${code}: ${message}`, code);
    }
    // A 2xx of another shape: the provider answered, wrongly (502 CUSTODY_PROVIDER_ERROR, not "unavailable").
    return shape.parse(parsed, (detail) => new ProviderError('malformed_answer', detail, res.status));
  }

  const enc = encodeURIComponent;
  const walletPath = (vaultId: string, walletId: string) => `/v2/vaults/${enc(vaultId)}/wallets/${enc(walletId)}`;
  return {
    createVault: (input) => call(VaultAnswer, 'POST', '/v2/vaults', input),
    createWallet: (vaultId, input) => call(WalletAnswer, 'POST', `/v2/vaults/${enc(vaultId)}/wallets`, input),
    updateWallet: (vaultId, walletId, input) => call(WalletAnswer, 'PUT', walletPath(vaultId, walletId), input),
    transfer: (vaultId, walletId, input) => call(TransactionAnswer, 'POST', `${walletPath(vaultId, walletId)}/transactions/transfer`, input),
    accountSet: (vaultId, walletId, input) => call(TransactionAnswer, 'POST', `${walletPath(vaultId, walletId)}/transactions/account-set`, input),
    getTransaction: (vaultId, walletId, transactionId) => call(TransactionAnswer, 'GET', `${walletPath(vaultId, walletId)}/transactions/${enc(transactionId)}`),
    async createTransfer(input) {
      const answer = await call(TransferAnswer, 'POST', '/v2/transfers', {
        source: { type: 'WALLET', id: input.sourceWalletId },
        destination: { type: 'ADDRESS', id: input.destinationAddress },
        assetType: input.assetType,
        amount: input.amount,
        idempotentId: input.idempotentId,
        deductFeeFromAmountIfSameType: input.deductFeeFromAmountIfSameType,
        ...(input.transferMemo === undefined ? {} : { transferMemo: input.transferMemo }),
        ...(input.transferAmlQuestionnaire === undefined ? {} : { transferAmlQuestionnaire: input.transferAmlQuestionnaire }),
      });
      return answer.data;
    },
    getTransfer: async (transferId) => (await call(TransferAnswer, 'GET', `/v2/transfers/${enc(transferId)}`)).data,
    webhookPublicKey: async () => (await call(PublicKeyAnswer, 'GET', '/v2/webhooks/public-key')).publicKey,
  };
}
