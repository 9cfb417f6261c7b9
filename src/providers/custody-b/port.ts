/**
 * The custody-b provider (delegated wallets-as-a-service, Dfns's protocol): what the custody-b
 * module asks of it. The port is bound to one tenant's connection (base URL, application id,
 * service token and the service account's key credential; src/providers/custody-b/custody-b/
 * declares the provider and builds it); user calls carry the user's own provider token, and
 * every write carries a one-time user-action token.
 */

/** A tenant's connection to the provider (the sandbox's, or a configured one). */
export interface CustodyBConnection {
  baseUrl: string;
  appId: string;
  /** The service account's bearer token. */
  serviceToken: string;
  /** The service account's key credential, which signs the service's own user actions. */
  serviceCredId: string;
  servicePrivateKeyPem: string;
}

/** A signed challenge as the user's credential answers it (the provider's `firstFactor`). */
export type CredentialAssertion =
  | { kind: 'Key'; credentialAssertion: { credId: string; clientData: string; signature: string; algorithm?: string } }
  | { kind: 'Fido2'; credentialAssertion: { credId: string; clientData: string; signature: string; authenticatorData: string; userHandle?: string } };

export interface SignedChallenge {
  challengeIdentifier: string;
  firstFactor: CredentialAssertion;
}

/** A new credential as the user's authenticator creates it. */
export interface CredentialAttestation {
  credentialKind: 'Key' | 'Fido2';
  credentialInfo: { credId: string; clientData: string; attestationData: string };
  credentialName?: string;
}

export interface RegistrationChallenge {
  user: { id: string; displayName: string; name: string };
  temporaryAuthenticationToken: string;
  challenge: string;
  rp?: { id: string; name: string };
  supportedCredentialKinds: { firstFactor: string[]; secondFactor: string[] };
  authenticatorSelection: Record<string, unknown>;
  attestation: string;
  pubKeyCredParams: { type: 'public-key'; alg: number }[];
  excludeCredentials: { type: 'public-key'; id: string }[];
  otpUrl: string;
}

export interface Registration {
  credential: { uuid: string; kind: string; name: string };
  user: { id: string; username: string; orgId: string };
}

export interface UserActionChallenge {
  challenge: string;
  challengeIdentifier: string;
  supportedCredentialKinds: { kind: string; factor: string; requiresSecondFactor: boolean }[];
  userVerification: string;
  attestation: string;
  allowCredentials: { key: { type: 'public-key'; id: string }[]; webauthn: { type: 'public-key'; id: string }[] };
  externalAuthenticationUrl: string;
}

/** The request a user action is bound to: method, path (from the API root) and JSON body. */
export interface UserActionRequest {
  method: 'POST' | 'PUT' | 'DELETE' | 'GET';
  path: string;
  body: unknown;
}

export interface ProviderWallet {
  id: string;
  network: string;
  address: string;
  status: string;
  signingKey: { scheme: string; curve: string; publicKey: string };
  name?: string;
  dateCreated: string;
}

export interface ProviderSignature {
  id: string;
  walletId: string;
  status: string;
  signature?: { r: string; s: string; recid?: number; encoded?: string };
  signedData?: string;
  dateRequested: string;
}

export interface ProviderBroadcast {
  id: string;
  walletId: string;
  status: string;
  txHash?: string;
  dateRequested: string;
}

export type SignatureRequest =
  | { kind: 'Message'; message: string }
  | { kind: 'Eip712'; types: Record<string, { name: string; type: string }[]>; domain: Record<string, unknown>; message: Record<string, unknown> };

/** The provider's EVM networks and their chain ids (a configured provider's wallets live there). */
export const NETWORK_CHAIN_IDS: Record<string, number> = {
  Ethereum: 1,
  EthereumSepolia: 11155111,
  EthereumHolesky: 17000,
  Polygon: 137,
  PolygonAmoy: 80002,
  Base: 8453,
  BaseSepolia: 84532,
  ArbitrumOne: 42161,
  ArbitrumSepolia: 421614,
  Optimism: 10,
  OptimismSepolia: 11155420,
};

/** The provider's XRP Ledger networks and the XRPL network names wallets are registered under. */
export const XRPL_NETWORK_NAMES: Record<string, string> = { XrpLedger: 'mainnet', XrpLedgerTestnet: 'testnet' };

/** Where Bastion registers a wallet of the provider: an EVM chain, or an XRPL network. */
export type CustodyBLocation = { chain: 'evm'; chainId: number } | { chain: 'xrpl'; network: string };

/**
 * The provider's protocol for one tenant (its connection bound in). User calls carry the
 * user's own provider token; every write carries a one-time user-action token. Failures are
 * `ProviderError`s (src/platform/providers/errors.ts) carrying the provider's status.
 */
export interface CustodyBProtocol {
  /** Service call (a service user action): a registration challenge for a new end user. */
  delegatedRegistrationChallenge(input: { email: string; externalId: string }): Promise<RegistrationChallenge>;
  /** Completes registration with the user's new credential (temporary token of the challenge). */
  register(temporaryAuthenticationToken: string, credential: CredentialAttestation): Promise<Registration>;
  /** Service call (a service user action): the end user's provider token. */
  delegatedLogin(username: string): Promise<{ token: string }>;
  /** A challenge for the user's credential, bound to one request. */
  userActionInit(userToken: string, request: UserActionRequest): Promise<UserActionChallenge>;
  /** The signed challenge exchanged for a one-time user-action token. */
  userActionSign(userToken: string, signed: SignedChallenge): Promise<{ userAction: string }>;
  createWallet(userToken: string, userAction: string, body: { network: string; name?: string }): Promise<ProviderWallet>;
  generateSignature(userToken: string, userAction: string, walletId: string, body: SignatureRequest): Promise<ProviderSignature>;
  broadcastTransaction(userToken: string, userAction: string, walletId: string, body: { kind: 'Transaction'; transaction: string }): Promise<ProviderBroadcast>;
}

/** The custody-b port: the protocol, and where the tenant's provider keeps its wallets. */
export interface CustodyBClient extends CustodyBProtocol {
  /** The network of a new wallet when the caller names none (the `network` setting). */
  readonly defaultNetwork: string;
  /** Where the provider's wallets on `network` are registered; undefined for a network it opens no wallets on. */
  locationOf(network: string): Promise<CustodyBLocation | undefined>;
  /** Every location a wallet of this chain may be registered at (a wallet is looked up by address). */
  locations(chain: 'evm' | 'xrpl'): Promise<CustodyBLocation[]>;
}

declare module '../../platform/providers/define.js' {
  interface ProviderPorts {
    'custody-b': CustodyBClient;
  }
}

/** The paths of the provider's API (relative to its base URL). */
export const CUSTODY_B_PATHS = {
  delegatedRegistration: '/auth/registration/delegated',
  registration: '/auth/registration',
  delegatedLogin: '/auth/login/delegated',
  actionInit: '/auth/action/init',
  action: '/auth/action',
  wallets: '/wallets',
  signatures: (walletId: string) => `/wallets/${encodeURIComponent(walletId)}/signatures`,
  transactions: (walletId: string) => `/wallets/${encodeURIComponent(walletId)}/transactions`,
} as const;

/** The user-action header the provider reads (the SDK's spelling). */
export const USER_ACTION_HEADER = 'x-dfns-useraction';
export const APP_ID_HEADER = 'x-dfns-appid';
export const NONCE_HEADER = 'x-dfns-nonce';
