/**
 * Every error code the service answers (or the CLI prints), with its one HTTP status and what
 * it means. `AppError` takes its code from here and its status must be the one listed (a type
 * error otherwise); the OpenAPI document lists the codes (`x-error-codes`, src/platform/http/openapi.ts);
 * test/platform/error-catalogue.test.ts checks that every code is thrown somewhere, that no code
 * is thrown outside the list, and that no two codes share a meaning.
 *
 * One condition, one code: a wallet that is not found is `WALLET_NOT_FOUND` in every module,
 * the message says which field or which wallet. A module adds a code only for a condition no
 * code here names.
 *
 * Provider failures are one `ProviderError` with a reason (src/platform/providers/errors.ts);
 * each reason has one status, and its code is the generic `PROVIDER_*` one below or the code a
 * provider's definition names for it (listed here with that reason's status).
 */
export const ERROR_CATALOGUE = {
  // The platform: tenancy, credentials, the request itself
  TENANT_REQUIRED: { status: 401, meaning: 'The x-tenant-id header is missing' },
  TENANT_UNKNOWN: { status: 401, meaning: 'The x-tenant-id header names no tenant' },
  CREDENTIALS_REQUIRED: { status: 401, meaning: 'The route needs a credential and none was sent' },
  API_KEY_INVALID: { status: 401, meaning: 'The API key is unknown, revoked or of another tenant' },
  TOKEN_INVALID: { status: 401, meaning: 'The bearer access token is malformed, expired, revoked or of another tenant' },
  FORBIDDEN: { status: 403, meaning: "The caller's role or credential kind may not do this" },
  ROUTE_NOT_FOUND: { status: 404, meaning: 'No route has this method and path' },
  VALIDATION_FAILED: { status: 400, meaning: 'The params, query or body do not match the schema of the route' },
  MALFORMED_JSON: { status: 400, meaning: 'The body is not valid JSON' },
  EMPTY_JSON_BODY: { status: 400, meaning: 'The content type is JSON and the body is empty' },
  MALFORMED_REQUEST: { status: 400, meaning: 'The request is not valid HTTP' },
  MALFORMED_URL: { status: 400, meaning: 'The URL holds a malformed percent-encoding' },
  PROVIDER_NOT_CONFIGURED: { status: 503, meaning: 'The tenant has not configured a provider of this kind and its sandbox is off' },
  PROVIDER_UNAVAILABLE: { status: 503, meaning: 'The provider cannot be reached or answers 5xx' },
  PROVIDER_REFUSED: { status: 502, meaning: 'The provider refused the request' },
  PROVIDER_UNAUTHORIZED: { status: 502, meaning: "The provider does not accept the tenant's credentials" },
  PROVIDER_NOT_FOUND: { status: 404, meaning: 'The provider does not know the object' },
  PROVIDER_ERROR: { status: 502, meaning: 'The provider answered something that is not its protocol' },
  FAUCET_AMOUNT_INVALID: { status: 400, meaning: 'A sandbox faucet amount is not a positive decimal' },
  FAUCET_LIMIT_EXCEEDED: { status: 400, meaning: 'A sandbox faucet amount is above the per-request limit' },
  FAUCET_NOT_SANDBOX: { status: 409, meaning: 'The tenant uses a real provider: the sandbox faucet does not apply' },
  FAUCET_UNAVAILABLE: { status: 503, meaning: 'The local chain has no dev account to fund from (EVM_RPC_URL set)' },
  BAD_REQUEST: { status: 400, meaning: 'The framework refused the request before any route ran' },
  REQUEST_TOO_DEEP: { status: 400, meaning: 'The body nests values more than 64 levels deep' },
  REQUEST_TIMEOUT: { status: 408, meaning: 'The request was not received in time' },
  BODY_TOO_LARGE: { status: 413, meaning: 'The body is larger than the route accepts' },
  URL_TOO_LONG: { status: 414, meaning: 'A path segment of the URL is too long' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, meaning: 'The route does not accept this content type' },
  RATE_LIMITED: { status: 429, meaning: 'Too many requests or attempts; retry after Retry-After seconds' },
  HEADERS_TOO_LARGE: { status: 431, meaning: 'The request line and headers are too large' },
  INTERNAL: { status: 500, meaning: 'An unexpected failure (logged)' },
  NOT_READY: { status: 503, meaning: 'The database or a module is not ready (readiness probe)' },
  RATE_LIMIT_UNAVAILABLE: { status: 503, meaning: 'The rate-limit store does not answer' },
  BUSY: { status: 503, meaning: 'Too many password hashes in progress; retry shortly' },
  IDEMPOTENCY_KEY_INVALID: { status: 400, meaning: 'The idempotency key is not 1 to 255 allowed characters' },
  IDEMPOTENCY_KEY_REQUIRED: { status: 400, meaning: 'The route needs an idempotency key and none was sent' },
  IDEMPOTENCY_KEY_MISMATCH: { status: 400, meaning: 'The Idempotency-Key header and the idempotentId field differ' },
  IDEMPOTENCY_KEY_REUSED: { status: 409, meaning: 'The idempotency key was used for a different request' },
  IDEMPOTENCY_IN_PROGRESS: { status: 409, meaning: 'A request with this idempotency key is still being processed' },
  ENUM_VALUE_UNKNOWN: { status: 400, meaning: 'A field holds a value outside its allowed list' },
  PROVIDER_UNKNOWN: { status: 400, meaning: 'body.provider names no provider of this kind' },
  REDIRECT_URL_NOT_ALLOWED: { status: 400, meaning: "A redirect URL is not on the tenant's allow-list" },

  // Shared by every module: one condition, one code
  USER_NOT_FOUND: { status: 404, meaning: 'The user does not exist in the tenant, or the caller may not see it' },
  USER_ID_REQUIRED: { status: 400, meaning: 'An API key or admin token must name the userId it acts for' },
  WALLET_NOT_FOUND: { status: 404, meaning: 'The wallet does not exist or is not the caller’s' },
  ADDRESS_INVALID: { status: 400, meaning: 'A blockchain address is not valid for its chain (checksum included)' },
  NETWORK_INVALID: { status: 400, meaning: 'The network or chain is not one wallets are kept on here' },
  AMOUNT_INVALID: { status: 400, meaning: 'An amount is not a positive decimal string in the units of its asset' },
  CHAIN_UNAVAILABLE: { status: 503, meaning: 'The EVM chain or the XRP ledger does not answer; retry later' },
  CHALLENGE_UNKNOWN: { status: 400, meaning: 'The signed challenge or nonce was not issued by this service to the caller' },
  CHALLENGE_USED: { status: 400, meaning: 'The challenge or nonce was already used; ask for a new one' },
  CHALLENGE_EXPIRED: { status: 400, meaning: 'The challenge or nonce expired; ask for a new one' },
  CHALLENGE_MISMATCH: { status: 400, meaning: 'The challenge was issued for another user, address, document or request' },
  SIGNATURE_INVALID: { status: 400, meaning: 'A signature does not verify for the message and the address' },
  TRANSACTION_INVALID: { status: 400, meaning: 'An unsigned transaction is not one the wallet may submit' },
  WALLET_EXISTS: { status: 409, meaning: 'The user already has a wallet of this kind or on this network' },
  WEBHOOK_SIGNATURE_MISSING: { status: 401, meaning: 'An inbound webhook has no signature header' },
  WEBHOOK_SIGNATURE_INVALID: { status: 401, meaning: 'An inbound webhook signature does not verify, or names an unknown tenant' },
  WEBHOOK_TENANT_UNKNOWN: { status: 401, meaning: 'An inbound webhook path names no tenant' },
  WEBHOOK_MALFORMED: { status: 400, meaning: 'An inbound webhook body is not an event of the provider' },

  // Tenants and API keys
  TENANT_NOT_FOUND: { status: 404, meaning: 'No tenant has this id (operator CLI)' },
  TENANT_NAME_TAKEN: { status: 409, meaning: 'Another tenant has this name' },
  TENANT_NAME_INVALID: { status: 400, meaning: 'A tenant name is not 1 to 100 printable characters' },
  TENANT_APP_URL_INVALID: { status: 400, meaning: 'A tenant app URL is not an absolute http(s) URL' },
  TENANT_CORS_ORIGIN_INVALID: { status: 400, meaning: 'A CORS origin is not scheme, host and port only (never *), or more than 50 are given' },
  API_KEY_NOT_FOUND: { status: 404, meaning: 'The API key does not exist or is revoked already' },
  API_KEY_SCOPES_INVALID: { status: 400, meaning: 'API key scopes are not a non-empty list of known scopes' },
  API_KEY_EXPIRY_INVALID: { status: 400, meaning: 'An API key expiry is not in the future' },
  SESSION_NOT_FOUND: { status: 404, meaning: 'The session does not exist, is not the user’s, or has ended already' },

  // Users and authentication
  USER_EMAIL_TAKEN: { status: 409, meaning: 'Another user of the tenant has this email' },
  USER_PHONE_TAKEN: { status: 409, meaning: 'Another user of the tenant has this phone number' },
  USER_PHONE_INVALID: { status: 400, meaning: 'A phone number is not in international format' },
  USER_EMAIL_INVALID: { status: 400, meaning: 'An email address is not valid' },
  INVALID_CREDENTIALS: { status: 401, meaning: 'The email or password is wrong' },
  REFRESH_TOKEN_INVALID: { status: 401, meaning: 'The refresh token is unknown, used, expired or revoked' },
  PASSWORD_POLICY: { status: 400, meaning: 'A new password is too short, too long or too common' },
  PASSWORD_INCORRECT: { status: 403, meaning: 'The current password given to confirm a change is wrong' },
  CODE_INVALID: { status: 400, meaning: 'A mailed one-time code is wrong or expired' },
  ONE_TIME_TOKEN_INVALID: { status: 400, meaning: 'A mailed verification or password-reset token is unknown, used or expired' },
  CHALLENGE_INVALID: { status: 401, meaning: 'The two-factor login challenge token is unknown or expired' },
  TWO_FACTOR_LOCKED: { status: 429, meaning: 'Too many wrong second-factor codes; locked for a while' },
  TWO_FACTOR_ALREADY_ENABLED: { status: 409, meaning: 'A second factor is enabled already' },
  TWO_FACTOR_NOT_ENABLED: { status: 409, meaning: 'Two-factor authentication is not enabled' },
  PASSKEY_NOT_FOUND: { status: 404, meaning: 'The caller has no passkey with this id' },
  PASSKEY_CHALLENGE_INVALID: { status: 400, meaning: 'The passkey challenge in the response is unknown, used, expired, or of another tenant, user or purpose' },
  PASSKEY_VERIFICATION_FAILED: { status: 400, meaning: 'The passkey registration response does not verify (origin, relying party, user verification, signature)' },
  PASSKEY_ALREADY_REGISTERED: { status: 409, meaning: 'This authenticator credential is registered already' },
  PASSKEY_LIMIT_REACHED: { status: 409, meaning: 'The user has the most passkeys allowed; remove one first' },
  PASSKEY_LOGIN_FAILED: { status: 401, meaning: 'The passkey assertion is refused (unknown credential, bad signature, counter gone back)' },
  IDP_STATE_INVALID: { status: 400, meaning: 'The identity-provider login state is unknown, altered, expired, used or of another tenant' },
  IDP_UNAVAILABLE: { status: 502, meaning: 'The external identity provider answered its discovery with something that is not OpenID Connect' },

  // Sign-In with Ethereum (POST /evm-eoas)
  SIWE_MESSAGE_INVALID: { status: 400, meaning: 'The message is not a valid EIP-4361 message' },
  SIWE_SIGNATURE_MALLEATED: { status: 400, meaning: 'The signature has a high s value (malleated)' },
  SIWE_DOMAIN_MISMATCH: { status: 400, meaning: 'The SIWE message is for another domain' },
  SIWE_URI_MISMATCH: { status: 400, meaning: 'The SIWE message is for another URI' },
  SIWE_CHAIN_MISMATCH: { status: 400, meaning: 'The SIWE message is for another chain id' },
  SIWE_MESSAGE_EXPIRED: { status: 400, meaning: 'The SIWE message is past its expirationTime' },
  SIWE_MESSAGE_NOT_YET_VALID: { status: 400, meaning: 'The SIWE message is before its notBefore' },

  // Wallets (registry, XRPL)
  WALLET_ADDRESS_TAKEN: { status: 409, meaning: 'Another user registered this address' },
  WALLET_KIND_CONFLICT: { status: 409, meaning: 'The address is registered as a wallet of another kind' },
  XRPL_ACCOUNT_NOT_FOUND: { status: 400, meaning: 'The XRPL account does not exist on the ledger (unfunded)' },
  XRPL_ACCOUNT_NOT_SECURED: { status: 400, meaning: 'The XRPL account has neither a SignerList nor a regular key' },
  XRPL_SECURE_ACCOUNT_NOT_FOUND: { status: 404, meaning: 'No secure XRPL account of the caller has this address' },
  XRPL_QUORUM_NOT_MET: { status: 400, meaning: "The signers' weights do not reach the SignerList quorum" },
  XRPL_MULTISIG_PREREQUISITES: { status: 409, meaning: 'Multi-signature needs the signer (hot) wallet and a registered cold wallet' },
  XRPL_COLD_SIGNATURE_REQUIRED: { status: 409, meaning: 'The service cannot sign alone: the cold key must sign too' },
  XRPL_NO_SERVICE_KEY: { status: 409, meaning: 'The service holds no key for this wallet' },
  XRPL_SETTINGS_EMPTY: { status: 400, meaning: 'The account-settings update names no setting' },
  XRPL_BLOB_INVALID: { status: 400, meaning: 'The transaction blob is not a signed XRPL transaction' },
  XRPL_BLOB_SIGNATURE_INVALID: { status: 400, meaning: "The transaction blob's signature does not verify" },
  XRPL_BLOB_FOREIGN_ACCOUNT: { status: 400, meaning: "The transaction blob's account is not one of the caller's wallets" },
  XRPL_BLOB_NO_LAST_LEDGER: { status: 400, meaning: 'The transaction blob has no LastLedgerSequence' },
  XRPL_TRANSACTION_REFUSED: { status: 409, meaning: 'The ledger refused the transaction (engine result)' },
  XRPL_TEST_SIGNING_OFF: { status: 404, meaning: 'The test signing route is off in this deployment' },
  XRPL_FUNDING_FAILED: { status: 503, meaning: 'The faucet did not fund the account' },

  // KYC and accreditations
  KYC_NOT_FOUND: { status: 404, meaning: 'The KYC record does not exist' },
  KYC_TRANSITION_INVALID: { status: 409, meaning: 'The KYC record cannot move from its status to the one asked' },
  KYC_PROVIDER_UNAVAILABLE: { status: 503, meaning: 'The identity-verification provider cannot be reached (Retry-After)' },
  KYC_PROVIDER_ERROR: { status: 502, meaning: 'The identity-verification provider refused the request or the credential, or answered in the wrong shape' },
  ACCREDITATION_NOT_FOUND: { status: 404, meaning: 'The accreditation does not exist' },
  ACCREDITATION_ALREADY_DECIDED: { status: 409, meaning: 'The accreditation was approved or rejected already' },
  ACCREDITATION_DOCUMENT_UNKNOWN: { status: 400, meaning: "documentIds name documents that are not the user's" },
  IDENTITY_PATH_NOT_FOUND: { status: 404, meaning: 'No identity field at this path' },

  // Documents and signing
  DOCUMENT_NOT_FOUND: { status: 404, meaning: 'The document does not exist' },
  SIGNED_DOCUMENT_NOT_FOUND: { status: 404, meaning: 'The signed document does not exist' },
  DOCUMENT_EMPTY: { status: 400, meaning: 'The uploaded document is empty' },
  DOCUMENT_TOO_LARGE: { status: 413, meaning: 'The uploaded document is larger than the limit' },
  DOCUMENT_TYPE_UNSUPPORTED: { status: 415, meaning: 'The document is not a PDF, PNG, JPEG, WebP or HEIC' },
  DOCUMENT_PDF_MALFORMED: { status: 400, meaning: 'The PDF is malformed' },
  DOCUMENT_PDF_ENCRYPTED: { status: 400, meaning: 'The PDF is encrypted' },
  DOCUMENT_MULTIPART_REQUIRED: { status: 415, meaning: 'The upload is not multipart/form-data with one file part' },
  DOCUMENT_FORM_INVALID: { status: 400, meaning: 'The multipart form is not one file part with the allowed fields' },
  DOCUMENT_URL_REFUSED: { status: 400, meaning: 'The document URL is refused (scheme, credentials, private address)' },
  DOCUMENT_URL_TIMEOUT: { status: 400, meaning: 'The document URL did not answer in time' },
  DOCUMENT_URL_FETCH_FAILED: { status: 400, meaning: 'The document URL could not be fetched' },
  DOCUMENT_CONTENT_REQUIRED: { status: 400, meaning: 'Neither or both of contentBase64 and url were given' },
  DOCUMENT_BASE64_INVALID: { status: 400, meaning: 'contentBase64 is not base64' },
  DOCUMENT_ALREADY_SIGNED: { status: 409, meaning: 'The user signed the document with this address already' },

  // Entities, payment methods, business profiles
  ENTITY_NOT_FOUND: { status: 404, meaning: 'The entity does not exist or the caller is not a member' },
  ENTITY_PERMISSION_REQUIRED: { status: 403, meaning: 'The caller lacks the entity permission the action needs' },
  ENTITY_MEMBER_NOT_FOUND: { status: 404, meaning: 'The user is not a member of the entity' },
  ENTITY_MEMBER_EXISTS: { status: 409, meaning: 'The user is a member of the entity already' },
  ENTITY_LAST_OWNER: { status: 409, meaning: 'The last owner of an entity cannot be removed or lose owner' },
  ENTITY_LEI_TAKEN: { status: 409, meaning: 'Another entity of the tenant has this LEI' },
  ENTITY_LEI_INVALID: { status: 400, meaning: 'The LEI fails its ISO 17442 checksum' },
  ENTITY_COUNTRY_INVALID: { status: 400, meaning: 'A country is not an ISO 3166-1 alpha-2 code' },
  ENTITY_METADATA_TOO_LARGE: { status: 400, meaning: 'Entity metadata is too large or too deep' },
  ENTITY_PERMISSION_UNKNOWN: { status: 400, meaning: 'A permission name is not one of the entity permissions' },
  PAYMENT_METHOD_NOT_FOUND: { status: 404, meaning: 'The payment method does not exist' },
  PAYMENT_METHOD_IBAN_INVALID: { status: 400, meaning: 'details.iban is not a valid IBAN' },
  PAYMENT_METHOD_BIC_INVALID: { status: 400, meaning: 'details.bic is not a valid SWIFT/BIC code' },
  PAYMENT_METHOD_ROUTING_INVALID: { status: 400, meaning: 'details.routingNumber is not a valid ABA routing number' },
  PAYMENT_METHOD_ACCOUNT_INVALID: { status: 400, meaning: 'The account number is not valid for the method' },
  PAYMENT_METHOD_CURRENCY_INVALID: { status: 400, meaning: 'details.currency is not an ISO 4217 code' },
  PAYMENT_METHOD_KIND_MISMATCH: { status: 400, meaning: "details are not of the method's kind" },
  BUSINESS_PROFILE_NOT_FOUND: { status: 404, meaning: 'The entity has no business profile' },
  BUSINESS_PROFILE_EXISTS: { status: 409, meaning: 'The entity has a live business profile already' },
  BUSINESS_PROFILE_TIN_INVALID: { status: 400, meaning: 'The TIN is not a nine-digit EIN' },
  BUSINESS_PROFILE_PROVIDER_ERROR: { status: 502, meaning: 'The business-profile provider did not accept the submission' },
  BUSINESS_NOT_FOUND: { status: 404, meaning: 'No such business in the business-profile sandbox (operator CLI)' },

  // Custody (custody-a vaults and transfers)
  VAULT_NOT_FOUND: { status: 404, meaning: 'The vault does not exist or is not the caller’s' },
  CUSTODY_TRANSACTION_NOT_FOUND: { status: 404, meaning: 'The custody transaction does not exist' },
  TRANSFER_NOT_FOUND: { status: 404, meaning: 'The transfer does not exist' },
  VAULT_LOOKUP_INVALID: { status: 400, meaning: 'Not exactly one of id and address was given' },
  SYMBOL_UNKNOWN: { status: 400, meaning: 'The asset symbol is not one the wallet holds' },
  CONTRACT_INVALID: { status: 400, meaning: 'The token contract is not an EIP-55 address of an EVM wallet' },
  SEQUENCE_INVALID: { status: 400, meaning: 'The XRPL sequence is not a non-negative integer string' },
  ACCOUNT_SET_NOT_XRPL: { status: 400, meaning: 'accountSet was given for a wallet that is not XRPL' },
  TRANSFER_SOURCE_INVALID: { status: 400, meaning: 'The transfer source is not an EVM wallet of the caller at the provider' },
  TRAVEL_RULE_DATA_REQUIRED: { status: 400, meaning: 'The travel-rule questionnaire lacks the fields its destination needs' },
  CUSTODY_WEBHOOK_OBJECT_UNKNOWN: { status: 503, meaning: 'A custody webhook names an object not recorded yet; send it again later' },
  CUSTODY_PROVIDER_UNAVAILABLE: { status: 503, meaning: 'The custody provider does not answer' },
  CUSTODY_PROVIDER_REFUSED: { status: 502, meaning: 'The custody provider refused the request' },
  CUSTODY_PROVIDER_ERROR: { status: 502, meaning: 'The custody provider answered an error' },

  // custody-b
  CUSTODY_B_USER_NOT_REGISTERED: { status: 404, meaning: 'The caller has no custody-b account yet' },
  CUSTODY_B_USER_ALREADY_REGISTERED: { status: 409, meaning: 'The caller has a custody-b account already' },
  CUSTODY_B_REGISTRATION_CHALLENGE_MISSING: { status: 400, meaning: 'No custody-b registration challenge is open for the caller' },
  CUSTODY_B_CREDENTIAL_REJECTED: { status: 401, meaning: "custody-b refused the credential's signature" },
  CUSTODY_B_TYPED_DATA_INVALID: { status: 400, meaning: 'The EIP-712 typed data is not valid' },
  CUSTODY_B_PROVIDER_REJECTED: { status: 400, meaning: 'custody-b refused the request' },
  CUSTODY_B_PROVIDER_CONFLICT: { status: 409, meaning: 'custody-b refused the request as a conflict with its state' },
  CUSTODY_B_PROVIDER_UNAVAILABLE: { status: 502, meaning: "custody-b refused the service's own credentials or request, or answered outside its protocol" },

  // Bank link
  BANK_LINK_PUBLIC_TOKEN_INVALID: { status: 400, meaning: 'The bank-link public token is expired, used or not valid' },
  BANK_LINK_ITEM_NOT_FOUND: { status: 404, meaning: 'The bank-link item does not exist' },
  BANK_LINK_ITEM_ALREADY_LINKED: { status: 409, meaning: 'The bank-link item is linked already' },
  BANK_LINK_ORIGINATOR_NOT_FOUND: { status: 404, meaning: 'The bank-link originator does not exist' },
  BANK_LINK_SANDBOX_UNAVAILABLE: { status: 404, meaning: "The sandbox routes answer only in the tenant's sandbox environment" },
  BANK_LINK_SANDBOX_CREDENTIALS_INVALID: { status: 400, meaning: "clientId and secret are not the tenant's sandbox credentials" },
  BANK_LINK_PROVIDER_ERROR: { status: 502, meaning: 'The bank-link provider refused the request or answered outside its protocol' },
  BANK_LINK_PROVIDER_UNAVAILABLE: { status: 503, meaning: 'The bank-link provider cannot be reached or answers 5xx' },

  // Event endpoints and the event feed
  EVENT_ENDPOINT_NOT_FOUND: { status: 404, meaning: 'The event endpoint does not exist' },
  EVENT_ENDPOINT_LIMIT: { status: 409, meaning: 'The tenant has the most event endpoints allowed' },
  EVENT_ENDPOINT_UPDATE_EMPTY: { status: 400, meaning: 'The endpoint update changes nothing' },
  EVENT_ENDPOINT_URL_INVALID: { status: 400, meaning: 'The endpoint URL is not a URL' },
  EVENT_ENDPOINT_URL_SCHEME: { status: 400, meaning: 'The endpoint URL is not https (or http where allowed)' },
  EVENT_ENDPOINT_URL_CREDENTIALS: { status: 400, meaning: 'The endpoint URL carries a user name or password' },
  EVENT_ENDPOINT_URL_UNRESOLVABLE: { status: 400, meaning: 'The endpoint host does not resolve' },
  EVENT_ENDPOINT_URL_PRIVATE_ADDRESS: { status: 400, meaning: 'The endpoint host resolves to a private or local address' },
  EVENT_REPLAY_RANGE_INVALID: { status: 400, meaning: 'The replay range is empty, reversed or too long' },
  EVENTS_CURSOR_UNKNOWN: { status: 400, meaning: 'The feed cursor names no dispatched event of the tenant' },
  EVENT_ENDPOINT_DISABLED: { status: 409, meaning: 'The event endpoint is disabled: enable it before sending it a test event or a retry' },
  EVENT_DELIVERY_NOT_FOUND: { status: 404, meaning: 'The endpoint has no delivery of this event' },
  EVENT_DELIVERY_DELIVERED: { status: 409, meaning: 'The delivery was made already: replay the event to send it again' },
  EVENT_DELIVERY_IN_FLIGHT: { status: 409, meaning: 'An attempt of the delivery is in flight; its outcome is recorded when it ends' },

  // The operator CLI (never an HTTP answer; the status sets nothing but the exit code's kind)
  usage: { status: 400, meaning: 'CLI: the command line is malformed (exit code 2)' },
  MAIL_NOT_FOUND: { status: 404, meaning: 'CLI: no single message in the mail directory matches' },
} as const satisfies Record<string, { status: number; meaning: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;
/** The one status of a code. */
export type ErrorStatus<C extends ErrorCode> = (typeof ERROR_CATALOGUE)[C]['status'];

export function statusOf(code: ErrorCode): number {
  return ERROR_CATALOGUE[code].status;
}
