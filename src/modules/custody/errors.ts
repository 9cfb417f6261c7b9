import { AppError, CommonErrors } from '../../platform/http/errors.js';

export const CustodyErrors = {
  vaultNotFound: () => new AppError(404, 'VAULT_NOT_FOUND', 'Vault not found'),
  walletNotFound: () => new AppError(404, 'WALLET_NOT_FOUND', 'Wallet not found in this vault'),
  transactionNotFound: () => new AppError(404, 'CUSTODY_TRANSACTION_NOT_FOUND', 'Transaction not found'),
  transferNotFound: () => new AppError(404, 'TRANSFER_NOT_FOUND', 'Transfer not found'),
  /** One code for every module (src/platform/http/errors.ts). */
  userNotFound: CommonErrors.userNotFound,
  userIdRequired: () => new AppError(400, 'USER_ID_REQUIRED', 'body.userId is required with an API key'),
  notForOthers: () => new AppError(403, 'FORBIDDEN', 'A user may create a vault only for itself'),
  lookupInvalid: () => new AppError(400, 'VAULT_LOOKUP_INVALID', 'Give exactly one of querystring.id and querystring.address'),
  qtyInvalid: (field: string, decimals: number) =>
    new AppError(400, 'AMOUNT_INVALID', `${field} must be a positive decimal string with at most ${decimals} decimals`),
  addressInvalid: (field: string, chain: string) => new AppError(400, 'ADDRESS_INVALID', `${field} is not a valid ${chain} address`),
  symbolUnknown: (allowed: string) => new AppError(400, 'SYMBOL_UNKNOWN', `body.symbol must be ${allowed}`),
  contractInvalid: () => new AppError(400, 'CONTRACT_INVALID', 'body.contract must be an EIP-55 checksummed address (EVM wallets only)'),
  sequenceInvalid: () => new AppError(400, 'SEQUENCE_INVALID', 'body.sequence must be a non-negative integer string (XRPL wallets only)'),
  accountSetNotXrpl: () => new AppError(400, 'ACCOUNT_SET_NOT_XRPL', 'body.accountSet applies to XRPL wallets only'),
  enumUnknown: (field: string, allowed: readonly string[]) => new AppError(400, 'ENUM_VALUE_UNKNOWN', `${field} must be one of: ${allowed.join(', ')}`),
  providerUnknown: (allowed: readonly string[]) => new AppError(400, 'PROVIDER_UNKNOWN', `body.provider must be one of: ${allowed.join(', ')}`),
  sourceInvalid: () => new AppError(400, 'TRANSFER_SOURCE_INVALID', 'body.sourceId must be an EVM wallet of the caller held by the named provider'),
  /** The travel-rule data a case needs; the message names the case the questionnaire gave. */
  questionnaireRequired: (destination: 'FINANCIAL_INSTITUTION' | 'SELFHOSTED_WALLET' | undefined, missing: string[]) =>
    new AppError(
      400,
      'TRAVEL_RULE_DATA_REQUIRED',
      destination === undefined
        ? 'body.transferAmlQuestionnaire.destinationType is required: FINANCIAL_INSTITUTION (to an account at a financial institution) or SELFHOSTED_WALLET (to a wallet the recipient holds the keys of)'
        : destination === 'SELFHOSTED_WALLET'
          ? `A transfer to a self-hosted wallet (destinationType SELFHOSTED_WALLET) needs in body.transferAmlQuestionnaire: ${missing.join(', ')}`
          : `A transfer to a financial institution (destinationType FINANCIAL_INSTITUTION) needs in body.transferAmlQuestionnaire: ${missing.join(', ')}`,
    ),
  // The provider's failures are ProviderError (src/platform/providers/errors.ts), answered by
  // reason with custody-a's codes (src/providers/custody/custody-a/index.ts, `codes`).
  webhookSignature: () => new AppError(401, 'WEBHOOK_SIGNATURE_INVALID', 'The webhook signature does not verify'),
  webhookObjectUnknown: () =>
    new AppError(503, 'CUSTODY_WEBHOOK_OBJECT_UNKNOWN', 'The webhook names a transaction or transfer not recorded here (yet): send it again later', { 'retry-after': '1' }),
};
