/**
 * What the OpenAPI document names (openapi.ts applies it): the tags with their descriptions,
 * the component schemas, and the curated examples of the most used operations.
 *
 * A component schema is named by where it first appears: `'METHOD /path STATUS'` (the answer)
 * or `'METHOD /path body'`, with an optional JSON pointer into that schema (`#/properties/data/items`).
 * Every schema of the document structurally identical to it (same JSON) becomes a `$ref` to it.
 * A source that no longer exists fails the document's build, so a renamed route is noticed.
 */
import { MAILED_CODE } from './openapi-sampler.js';

/** One tag per module (and per group of provider callbacks), with what it covers. */
export const TAGS: Array<{ name: string; description: string }> = [
  { name: 'Authentication', description: 'Sign-up, login, token refresh and logout, email verification, password reset, two-factor login, and login at the tenant’s external OpenID provider.' },
  { name: 'Users', description: 'The tenant’s users: the calling user’s profile, and (API key or admin) creating, listing and editing users.' },
  { name: 'API keys', description: 'The tenant’s API keys (an admin, or a key with scope `all`): list, create with scopes and expiry, revoke, rotate with an overlap.' },
  { name: 'Audit', description: 'The tenant’s audit log: who changed what, newest first.' },
  { name: 'KYC', description: 'Identity verification: sessions at the identity-verification providers (idv-a, idv-b), the records and their history, and manual review.' },
  { name: 'KYC provider callbacks', description: 'Signed callbacks of the identity-verification providers (not for tenants’ clients).' },
  { name: 'Identity', description: 'The identity Merkle root of the tenant and proofs of single identity fields, for on-chain verification.' },
  { name: 'Wallets', description: 'Registered wallets: EVM addresses proven with Sign-In with Ethereum, and custodial vaults.' },
  { name: 'Wallets (XRPL)', description: 'XRP Ledger wallets: secure (multi-signed) accounts, the investor, signer and cold wallets, signing and submitting transactions.' },
  { name: 'Documents', description: 'User documents (uploads), tenant documents to sign, and the signed documents (EVM or XRPL signatures, re-verifiable offline).' },
  { name: 'Accreditations', description: 'Investor accreditation claims and their decisions.' },
  { name: 'Entities', description: 'Legal entities, their members and permissions, manual payment methods and business profiles.' },
  { name: 'Entities provider callbacks', description: 'Signed callbacks of the business-profile provider (not for tenants’ clients).' },
  { name: 'Custody (custody-a)', description: 'Custodial vault wallets at custody-a: transfers, wallet settings, transactions, and the provider’s signed webhooks.' },
  { name: 'Custody provider (custody-b)', description: 'Delegated custody at custody-b: registration of the user’s credential, wallets, and signing with user-action challenges.' },
  { name: 'Transfers', description: 'Transfers from the caller’s wallets through a custody provider, with travel-rule data.' },
  { name: 'Sandbox faucets', description: 'Sandbox only: fund wallets from the built-in sandboxes’ faucets.' },
  { name: 'Events', description: 'Event endpoints (Standard Webhooks deliveries of the events listed under `webhooks`), secret rotation, replays, and the pull feed.' },
  { name: 'Bank-account linking', description: 'Linking bank accounts through the bank-link provider’s hosted page, the linked items, and the provider’s signed webhooks.' },
  { name: 'Bank-account linking: sandbox originators', description: 'Sandbox only: the bank-link sandbox’s originators and their KYB.' },
];

/** Component name -> where its schema first appears (see the file's comment). */
export const NAMED_SCHEMAS: Record<string, string> = {
  UserProfile: 'GET /users/me 200',
  User: 'PATCH /users/me 200',
  UserList: 'GET /users 200',
  WalletAddresses: 'GET /users/wallet-addresses/{userId} 200',
  UserUpdate: 'PATCH /users/me body',
  TokenPair: 'POST /auth/refresh 201',
  TwoFactorChallenge: 'POST /auth/login 201 #/anyOf/1',
  Credentials: 'POST /auth/login body',
  TwoFactorStatus: 'GET /auth/2fa/status 200',
  EmailVerification: 'POST /auth/email/verify-token 201',
  Message: 'POST /auth/logout 201',
  KycSession: 'POST /kyc 201',
  KycRecord: 'GET /kyc/current/{kycId} 200',
  KycSummary: 'GET /kyc 200 #/properties/data/items',
  KycList: 'GET /kyc 200',
  ProviderCallbackOutcome: 'POST /kyc/callback/idv-b 201',
  Wallet: 'POST /evm-eoas 201',
  WalletList: 'GET /evm-eoas 200',
  XrplWallet: 'POST /non-custodian-xrpl/wallet 201',
  XrplAccount: 'POST /non-custodian-xrpl/wallet 201 #/properties/account',
  XrplChallenge: 'GET /non-custodian-xrpl/challenge 200',
  XrplSubmission: 'POST /non-custodian-xrpl/tx-submit 201',
  UserDocument: 'POST /user-documents/from-url 201',
  TenantDocument: 'GET /tenant-documents/{id} 200',
  SignedDocument: 'GET /signed-documents/{id} 200',
  Accreditation: 'POST /accreditations/{id}/decision 201',
  Entity: 'GET /entities/{id} 200',
  PostalAddress: 'POST /entities body #/properties/address',
  EntityMember: 'POST /entities/{id}/users 201',
  PaymentMethod: 'GET /entities/{id}/manual-payment-methods/{methodId} 200',
  BusinessProfile: 'GET /entities/{id}/business-profile-a 200',
  Vault: 'GET /evm-vaults 200',
  CustodyTransaction: 'GET /custody-a/vaults/{vaultId}/wallets/{walletId}/transactions/{transactionId} 200',
  Transfer: 'GET /non-custodial-evm/transfers/{id} 200',
  AdminTransfer: 'GET /custody-a/transfers/{id} 200',
  TravelRuleQuestionnaire: 'POST /non-custodial-evm/transfers body #/properties/transferAmlQuestionnaire',
  EventEndpoint: 'GET /event-endpoints/{id} 200',
  LinkToken: 'GET /bank-link/link-token 200',
  BankLinkItem: 'POST /bank-link/public-token 201',
  Originator: 'GET /bank-link/tenant/originator 200',
  CustodyBChallenge: 'GET /custody-b/wallets/challenge 200',
  CustodyBSignedChallenge: 'POST /custody-b/wallets body #/properties/signedChallenge',
  CustodyBSignature: 'POST /custody-b/message 201',
  Eip712TypedData: 'POST /custody-b/message/eip712/sign body #/properties/typedData',
};

const USER_ID = '3fa85f64-5717-4562-b3fc-2c963f66afa6';
const TOKEN_PAIR = {
  accessToken: 'eyJhbGciOiJFZERTQSIsImtpZCI6IjFmMmUifQ.eyJzdWIiOiIzZmE4NWY2NC01NzE3LTQ1NjItYjNmYy0yYzk2M2Y2NmFmYTYifQ.c2lnbmF0dXJl',
  refreshToken: 'rt_4mJ0cXhU2q8fK1wZ9bLr7yTn',
  tokenType: 'Bearer',
  expiresIn: 900,
  accessTokenExpiresAt: '2026-01-15T09:45:00.000Z',
  refreshTokenExpiresAt: '2026-01-22T09:30:00.000Z',
};
const USER = {
  id: USER_ID,
  email: 'ada@example.com',
  fullName: 'Ada Lovelace',
  phone: null,
  role: 'user',
  emailVerified: false,
  kycStatus: null,
  evmEoa: null,
  xrplSecureAccountAddress: null,
  createdAt: '2026-01-15T09:30:00.000Z',
  updatedAt: '2026-01-15T09:30:00.000Z',
};
const PROFILE = { ...USER, emailVerified: true, kycStatus: 'approved', evmEoa: '0x5B38Da6a701c568545dCfcB03FcB875f56beddC4', walletAddresses: { evm: '0x5B38Da6a701c568545dCfcB03FcB875f56beddC4', evmCompatible: null, xrpl: null } };

/**
 * Curated examples, by operation (`'METHOD /path'`): the request body and the main (first 2xx)
 * answer. The other operations' examples are generated from their schemas (openapi-sampler.ts).
 */
export const CURATED_EXAMPLES: Record<string, { request?: unknown; response?: unknown }> = {
  'POST /auth/email': {
    request: { email: 'ada@example.com', password: 'correct horse battery staple', fullName: 'Ada Lovelace' },
    response: USER,
  },
  'POST /auth/email/login': { request: { email: 'ada@example.com', password: 'correct horse battery staple' }, response: TOKEN_PAIR },
  'POST /auth/login': { request: { email: 'ada@example.com', password: 'correct horse battery staple' }, response: TOKEN_PAIR },
  'POST /auth/refresh': { request: { refreshToken: 'rt_4mJ0cXhU2q8fK1wZ9bLr7yTn' }, response: TOKEN_PAIR },
  'POST /auth/logout': { request: {}, response: { message: 'Logged out' } },
  'POST /auth/users/{userId}/token': { request: {}, response: TOKEN_PAIR },
  'POST /auth/email/verify-otp': { request: { email: 'ada@example.com', code: MAILED_CODE }, response: { message: 'Email verified', emailVerified: true } },
  'POST /auth/forgot-password': { request: { email: 'ada@example.com' } },
  'POST /auth/2fa/verify': { response: TOKEN_PAIR },
  'GET /users/me': { response: PROFILE },
  'PATCH /users/me': { request: { fullName: 'Ada King', phone: '+14155550123' }, response: { ...USER, fullName: 'Ada King', phone: '+14155550123' } },
  'POST /users': { request: { email: 'ada@example.com', fullName: 'Ada Lovelace' }, response: USER },
  'GET /users': { response: { total: 1, data: [USER] } },
  'GET /users/{id}': { response: PROFILE },
  'PATCH /users/{id}': { request: { fullName: 'Ada King' }, response: { ...USER, fullName: 'Ada King' } },
};
