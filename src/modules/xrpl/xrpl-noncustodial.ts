import { encode, encodeForMultisigning, encodeForSigning } from 'ripple-binary-codec';
import { sign as signBytes } from 'ripple-keypairs';
import { multisign, validate, Wallet, type SubmittableTransaction } from 'xrpl';
import { verifyXrplMessage } from '../../platform/crypto/wallet-signatures.js';
import type { RunInTx } from '../../platform/db/tx.js';
import { inspectSignedBlob, XrplLedgerError, type XrplAccountInfo, type XrplLedgerPort } from '../../providers/xrpl-ledger/port.js';
import type { UsersService } from '../users/service.js';
import { WalletErrors, type WalletDto } from '../wallets/module.js';
import { toWalletDto, type WalletsService } from '../wallets/service.js';
import type { WalletKind, WalletRow } from '../wallets/table.js';
import { accountState, checkAddress, type AccountStateDto } from './xrpl-common.js';
import type { CallContext } from '../../platform/http/context.js';
import { beforeEffects } from '../../platform/idempotency/before-effects.js';
import type { XrplChallenges } from './xrpl-challenges.js';
import { onLedger, XrplErrors } from './xrpl-errors.js';
import type { XrplRepo } from './xrpl-repo.js';
import { toSubmissionDto, type SubmissionDto, type XrplSubmissions } from './xrpl-submissions.js';

/** AccountSet flags the update route changes (asf values). */
const SETTINGS = { rippling: 8, requireDestinationTag: 1, disallowXrp: 3, depositAuth: 9 } as const;
const FLAG_NAMES = { rippling: 'defaultRipple', requireDestinationTag: 'requireDestTag', disallowXrp: 'disallowXRP', depositAuth: 'depositAuth' } as const;
type Setting = keyof typeof SETTINGS;
const ASF_DISABLE_MASTER = 4;

/** Transaction types sign-transaction prepares. */
export const SIGNABLE_TYPES = ['Payment', 'AccountSet', 'TrustSet', 'SetRegularKey', 'SignerListSet'] as const;
/** Fields the service fills or that carry signatures: never taken from the caller. */
const FILLED_FIELDS = ['Sequence', 'Fee', 'LastLedgerSequence', 'SigningPubKey', 'TxnSignature', 'Signers', 'TicketSequence', 'NetworkID'];
const DROPS = /^[1-9][0-9]{0,16}$/;
const ISSUED_VALUE = /^[0-9]{1,16}(\.[0-9]{1,15})?([eE][+-]?[0-9]{1,3})?$/;
/** In the sandbox, new service-held accounts get this much from the faucet. */
const FUNDING_XRP = '100';

export interface XrplWalletDto extends WalletDto {
  account: AccountStateDto;
}

export interface WalletsByKind {
  investor: WalletDto | null;
  signer: WalletDto | null;
  cold: WalletDto[];
  secure: WalletDto[];
}

export interface SignedTransactionDto {
  /** True when txBlob carries every signature the account needs: submit it as is. */
  complete: boolean;
  /** The signed blob (complete), the service's own multi-signature (partial), or null (a cold wallet signs alone). */
  txBlob: string | null;
  hash: string | null;
  /** The transaction as autofilled from the ledger (Sequence, Fee, LastLedgerSequence). */
  transaction: Record<string, unknown>;
  /** What the cold wallet must sign: hex of the signing data (multi-signing data when `multisign`). */
  signaturesRequired: { account: string; multisign: boolean; signingData: string }[];
}

function checkAmount(value: unknown, field: string): void {
  if (typeof value === 'string') {
    if (!DROPS.test(value) || BigInt(value) > 100_000_000_000_000_000n) throw XrplErrors.amountInvalid(field);
    return;
  }
  const amount = value as { currency?: unknown; issuer?: unknown; value?: unknown } | null;
  if (!amount || typeof amount !== 'object' || typeof amount.currency !== 'string' || typeof amount.issuer !== 'string' || typeof amount.value !== 'string') {
    throw XrplErrors.amountInvalid(field);
  }
  if (!ISSUED_VALUE.test(amount.value) || Number(amount.value) <= 0) throw XrplErrors.amountInvalid(field);
  checkAddress(amount.issuer, `${field}.issuer`);
}

/** Validates a caller's transaction before anything is filled, signed or sent. */
function checkTransaction(input: Record<string, unknown>): SubmittableTransaction {
  const type = input.TransactionType;
  if (typeof type !== 'string' || !(SIGNABLE_TYPES as readonly string[]).includes(type)) {
    throw XrplErrors.transactionInvalid(`TransactionType must be one of ${SIGNABLE_TYPES.join(', ')}`);
  }
  if (typeof input.Account !== 'string') throw XrplErrors.transactionInvalid('Account is required');
  checkAddress(input.Account, 'body.transaction.Account');
  for (const field of FILLED_FIELDS) if (field in input) throw XrplErrors.transactionInvalid(`${field} is filled by the service`);
  if (type === 'Payment') {
    checkAmount(input.Amount, 'body.transaction.Amount');
    if (typeof input.Destination !== 'string') throw XrplErrors.transactionInvalid('Destination is required');
    checkAddress(input.Destination, 'body.transaction.Destination');
    if (input.SendMax !== undefined) checkAmount(input.SendMax, 'body.transaction.SendMax');
  }
  try {
    validate(input);
    encode(input as never);
  } catch (error) {
    throw XrplErrors.transactionInvalid((error as Error).message.slice(0, 200));
  }
  return input as unknown as SubmittableTransaction;
}

/**
 * Non-custodial XRPL wallets. Who holds which key:
 * - the signer (hot) wallet: generated by the service, its seed sealed by the SecretBox;
 * - the cold wallet: the user's own key, never seen by the service (registered by a signature);
 * - the investor wallet: an account generated by the service, whose seed is sealed only until
 *   the multi-signature is set up (SignerList = signer + cold, quorum 2, then the master key
 *   disabled): from then on no single party, the service included, can move its funds.
 */
export function createXrplNonCustodial(deps: {
  tx: RunInTx;
  users: UsersService;
  wallets: WalletsService;
  repo: XrplRepo;
  ledger: XrplLedgerPort;
  network: () => Promise<string>;
  challenges: XrplChallenges;
  submissions: XrplSubmissions;
  testSigning: boolean;
}) {
  const { tx, users, wallets, repo, ledger, challenges, submissions } = deps;
  const network = () => onLedger(deps.network);
  const live = async (address: string) => onLedger(() => ledger.accountInfo(address));

  async function walletOfKind(tenantId: string, userId: string, kind: WalletKind): Promise<WalletDto | null> {
    const page = await wallets.listByUser(tenantId, userId, { kind, chain: 'xrpl' }, { limit: 1, offset: 0 });
    return page.data[0] ?? null;
  }

  /** One of the user's XRPL wallets by address; anything else (another user's, tenant's): 404. */
  async function ownWallet(tenantId: string, userId: string, address: string): Promise<WalletRow> {
    checkAddress(address);
    const row = await wallets.findByAddress(tenantId, { chain: 'xrpl', network: await network() }, address);
    if (!row || row.userId !== userId || row.chain !== 'xrpl') throw XrplErrors.walletNotFound();
    return row;
  }

  const withWallet = <T>(tenantId: string, row: WalletRow, use: (wallet: Wallet) => T | Promise<T>) =>
    wallets.withPrivateKey(tenantId, row.id, async (seed) => use(Wallet.fromSeed(seed)));

  /** Creates a service-held account (investor or signer): one per user; a repeat answers the existing one. */
  async function createHeld(ctx: CallContext, requested: string | undefined, kind: 'xrpl-investor' | 'xrpl-signer'): Promise<{ wallet: XrplWalletDto; created: boolean }> {
    const { tenantId, actor } = ctx;
    const userId = await users.actingFor(ctx, requested, WalletErrors.userIdRequired);
    const net = await network();
    const result = await tx(async (db) => {
      // One wallet of the kind per user, even when two requests race (the lock serializes them).
      await repo.lockAccount(net, `${tenantId}:${userId}:${kind}`, db);
      const existing = await wallets.firstOfUser(tenantId, userId, { kind, chain: 'xrpl' }, db);
      if (existing) return { row: undefined, dto: toWalletDto(existing) };
      const generated = Wallet.generate();
      const registered = await wallets.register(
        tenantId,
        userId,
        { kind, chain: 'xrpl', network: net, address: generated.classicAddress, privateKey: generated.seed!, details: { publicKey: generated.publicKey, keyHolder: 'service' } },
        { actor, db },
      );
      return { row: registered.wallet, dto: toWalletDto(registered.wallet) };
    });
    if (result.row) {
      // Fund it where the network has a faucet (the stand-in, a test network); else it waits for a payment.
      try {
        await ledger.fundAccount(result.dto.address, FUNDING_XRP);
      } catch (error) {
        if (!(error instanceof XrplLedgerError && error.kind === 'faucet_unavailable')) throw XrplErrors.fundingFailed();
      }
    }
    return { wallet: { ...result.dto, account: accountState(await live(result.dto.address)) }, created: Boolean(result.row) };
  }

  /** Signs for an account the service can sign for alone (its own key, master enabled); else undefined. */
  function canSignAlone(row: WalletRow, info: XrplAccountInfo | null): boolean {
    return (row.kind === 'xrpl-signer' || row.kind === 'xrpl-investor') && row.sealedKey !== null && !info?.flags.disableMaster;
  }

  return {
    async challengeFor(ctx: CallContext, requested: string | undefined, address: string | null) {
      const { tenantId } = ctx;
      const userId = await users.actingFor(ctx, requested, WalletErrors.userIdRequired);
      return challenges.issue(tenantId, userId, address === null ? null : checkAddress(address));
    },

    createInvestor: (ctx: CallContext, requested: string | undefined) => createHeld(ctx, requested, 'xrpl-investor'),
    createSigner: (ctx: CallContext, requested: string | undefined) => createHeld(ctx, requested, 'xrpl-signer'),

    /** Registers a cold wallet: a signature over the challenge by the address's master key, or its regular key read from the ledger. */
    async registerCold(ctx: CallContext,
      input: { userId?: string; address: string; publicKey: string; signature: string; challenge: string },
    ): Promise<{ wallet: XrplWalletDto; created: boolean }> {
      const { tenantId, actor } = ctx;
      const userId = await users.actingFor(ctx, input.userId, WalletErrors.userIdRequired);
      const address = checkAddress(input.address);
      const issued = await challenges.check(tenantId, userId, input.challenge, address);
      const info = await live(address);
      const proof = await verifyXrplMessage({
        address,
        message: issued.message,
        signature: input.signature,
        publicKey: input.publicKey,
        regularKey: info?.regularKey,
        masterDisabled: info?.flags.disableMaster,
      });
      if (!proof.valid) throw XrplErrors.signatureInvalid();
      const net = await network();
      const result = await tx(async (db) => {
        await challenges.consume(tenantId, userId, issued, db);
        return wallets.register(
          tenantId,
          userId,
          { kind: 'xrpl-cold', chain: 'xrpl', network: net, address, details: { publicKey: input.publicKey.toUpperCase(), proof: proof.keyKind, keyHolder: 'user' } },
          { actor, db },
        );
      });
      return { wallet: { ...toWalletDto(result.wallet), account: accountState(info) }, created: result.created };
    },

    /**
     * Changes account settings through AccountSet transactions signed by the service (its
     * signer wallet; the investor account until the multi-signature is on), each submitted
     * reliably; `multiSignature: true` installs the investor's SignerList (signer + cold,
     * quorum 2) and disables its master key.
     */
    async update(ctx: CallContext,
      address: string,
      input: { userId?: string; multiSignature?: boolean } & Partial<Record<Setting, boolean>>,
    ): Promise<{ wallet: XrplWalletDto; transactions: SubmissionDto[] }> {
      const { tenantId } = ctx;
      // The checks before the first transaction: a refusal here changed nothing and gives an
      // Idempotency-Key back (beforeEffects); once a transaction is sent the answer is final.
      const { userId, row, net, steps } = await beforeEffects(async () => {
        const userId = await users.actingFor(ctx, input.userId, WalletErrors.userIdRequired);
        const row = await ownWallet(tenantId, userId, address);
        const settings = (Object.keys(SETTINGS) as Setting[]).filter((s) => input[s] !== undefined);
        if (settings.length === 0 && input.multiSignature === undefined) throw XrplErrors.nothingToChange();
        if (input.multiSignature === false) throw XrplErrors.transactionInvalid('multiSignature can only be turned on here (the master key stays disabled)');
        const info = await live(address);
        if (!info) throw XrplErrors.accountNotFound();
        if (!canSignAlone(row, info)) throw XrplErrors.signatureRequired(address);
        const net = await network();

        const steps: SubmittableTransaction[] = [];
        for (const setting of settings) {
          const want = input[setting]!;
          if (info.flags[FLAG_NAMES[setting]] === want) continue;
          steps.push({ TransactionType: 'AccountSet', Account: address, ...(want ? { SetFlag: SETTINGS[setting] } : { ClearFlag: SETTINGS[setting] }) });
        }
        if (input.multiSignature) {
          if (row.kind !== 'xrpl-investor') throw XrplErrors.transactionInvalid('multiSignature applies to the investor wallet');
          const signer = await walletOfKind(tenantId, userId, 'xrpl-signer');
          const cold = await walletOfKind(tenantId, userId, 'xrpl-cold');
          if (!signer || !cold) throw XrplErrors.signerAndColdRequired();
          steps.push({
            TransactionType: 'SignerListSet',
            Account: address,
            SignerQuorum: 2,
            SignerEntries: [signer, cold].map((w) => ({ SignerEntry: { Account: w.address, SignerWeight: 1 } })),
          });
          steps.push({ TransactionType: 'AccountSet', Account: address, SetFlag: ASF_DISABLE_MASTER });
        }
        return { userId, row, net, steps };
      });
      const done: SubmissionDto[] = [];
      for (const step of steps) {
        const submitted = await withWallet(tenantId, row, (wallet) => submissions.signAndSubmit(tenantId, userId, net, step, (filled) => wallet.sign(filled), ctx.actor));
        done.push(toSubmissionDto(submitted));
        if (submitted.status !== 'validated' || submitted.result !== 'tesSUCCESS') break;
      }
      return { wallet: { ...toWalletDto(row), account: accountState(await live(address)) }, transactions: done };
    },

    /**
     * Prepares a transaction of one of the caller's wallets: autofilled from the ledger, signed
     * by the service where it holds a key that may sign, and answering what the cold wallet
     * must sign otherwise.
     */
    async signTransaction(ctx: CallContext, input: { userId?: string; transaction: Record<string, unknown> }): Promise<SignedTransactionDto> {
      const { tenantId } = ctx;
      const userId = await users.actingFor(ctx, input.userId, WalletErrors.userIdRequired);
      const transaction = checkTransaction(input.transaction);
      const row = await ownWallet(tenantId, userId, transaction.Account);
      const info = await live(row.address);
      if (!info) throw XrplErrors.accountNotFound();

      if (canSignAlone(row, info)) {
        const filled = await onLedger(() => ledger.autofill({ ...transaction }));
        const signed = await withWallet(tenantId, row, (wallet) => wallet.sign(filled));
        return { complete: true, txBlob: signed.tx_blob, hash: signed.hash, transaction: filled as never, signaturesRequired: [] };
      }
      if (row.kind === 'xrpl-investor' && info.signerList) {
        const signer = await walletOfKind(tenantId, userId, 'xrpl-signer');
        const cold = await walletOfKind(tenantId, userId, 'xrpl-cold');
        const inList = (w: WalletDto | null) => w !== null && info.signerList!.signers.some((s) => s.account === w.address);
        if (!inList(signer) || !inList(cold)) throw XrplErrors.signerAndColdRequired();
        const filled = await onLedger(() => ledger.autofill({ ...transaction }, { signersCount: 2 }));
        const signerRow = (await wallets.findById(tenantId, signer!.walletId))!;
        const partial = await withWallet(tenantId, signerRow, (wallet) => wallet.sign(filled, true));
        return {
          complete: false,
          txBlob: partial.tx_blob,
          hash: null,
          transaction: filled as never,
          signaturesRequired: [{ account: cold!.address, multisign: true, signingData: encodeForMultisigning(filled as never, cold!.address) }],
        };
      }
      if (row.kind === 'xrpl-cold' || row.kind === 'xrpl-secure') {
        const filled = await onLedger(() => ledger.autofill({ ...transaction }));
        return { complete: false, txBlob: null, hash: null, transaction: filled as never, signaturesRequired: [{ account: row.address, multisign: false, signingData: encodeForSigning(filled as never) }] };
      }
      throw XrplErrors.signatureRequired(row.address);
    },

    /**
     * Verifies a signed blob locally (decodes, signatures, the account is the caller's wallet,
     * a LastLedgerSequence), then submits it reliably and answers the tracked transaction.
     * `txBlobs` are multi-signatures of one transaction, combined first.
     */
    async submit(ctx: CallContext, input: { userId?: string; txBlob?: string; txBlobs?: string[] }): Promise<SubmissionDto> {
      const { tenantId } = ctx;
      // Every check runs before the blob is stored or sent: a refusal gives an Idempotency-Key back.
      const { userId, net, inspected, blob } = await beforeEffects(async () => {
        const userId = await users.actingFor(ctx, input.userId, WalletErrors.userIdRequired);
        if ((input.txBlob === undefined) === (input.txBlobs === undefined)) throw XrplErrors.blobInvalid('send txBlob, or txBlobs (multi-signatures to combine), not both');
        let blob = input.txBlob;
        if (input.txBlobs) {
          for (const part of input.txBlobs) {
            const checked = inspectSignedBlob(part);
            if (!checked.ok) throw checked.reason === 'bad_signature' ? XrplErrors.blobSignatureInvalid(checked.message) : XrplErrors.blobInvalid(checked.message);
          }
          try {
            blob = multisign(input.txBlobs);
          } catch (error) {
            throw XrplErrors.blobInvalid(`the multi-signatures do not combine: ${(error as Error).message.slice(0, 200)}`);
          }
        }
        const inspected = inspectSignedBlob(blob!);
        if (!inspected.ok) throw inspected.reason === 'bad_signature' ? XrplErrors.blobSignatureInvalid(inspected.message) : XrplErrors.blobInvalid(inspected.message);
        const net = await network();
        const owned = await wallets.findByAddress(tenantId, { chain: 'xrpl', network: net }, inspected.tx.Account);
        if (!owned || owned.userId !== userId) throw XrplErrors.blobForeign();
        if (typeof inspected.tx.LastLedgerSequence !== 'number') throw XrplErrors.blobNoLastLedger();
        if (inspected.tx.TransactionType === 'Payment') checkAmount(inspected.tx.Amount, 'the Amount of body.txBlob');
        return { userId, net, inspected, blob: blob! };
      });
      const row = await submissions.submitSigned(tenantId, userId, net, { tx: inspected.tx, hash: inspected.hash, blob }, ctx.actor);
      return toSubmissionDto(row);
    },

    /** Testing only: signs a message (UTF-8) with the key the service holds for one of the caller's wallets. */
    async signMessage(ctx: CallContext, input: { userId?: string; address: string; message: string }) {
      const { tenantId } = ctx;
      if (!deps.testSigning) throw XrplErrors.testSigningOff();
      const userId = await users.actingFor(ctx, input.userId, WalletErrors.userIdRequired);
      const row = await ownWallet(tenantId, userId, input.address);
      if (!row.sealedKey) throw XrplErrors.noServiceKey();
      return withWallet(tenantId, row, (wallet) => ({
        address: row.address,
        publicKey: wallet.publicKey,
        message: input.message,
        signature: signBytes(Buffer.from(input.message, 'utf8').toString('hex').toUpperCase(), wallet.privateKey),
      }));
    },

    async listWallets(ctx: CallContext, requested: string | undefined): Promise<WalletsByKind> {
      const all = await users.pageActingFor(ctx, requested, WalletErrors.userIdRequired, (userId) => wallets.pageForUser(ctx.tenantId, userId, { chain: 'xrpl' }, { limit: 100, offset: 0 }));
      return {
        investor: all.data.find((w) => w.kind === 'xrpl-investor') ?? null,
        signer: all.data.find((w) => w.kind === 'xrpl-signer') ?? null,
        cold: all.data.filter((w) => w.kind === 'xrpl-cold'),
        secure: all.data.filter((w) => w.kind === 'xrpl-secure'),
      };
    },
  };
}

export type XrplNonCustodial = ReturnType<typeof createXrplNonCustodial>;
