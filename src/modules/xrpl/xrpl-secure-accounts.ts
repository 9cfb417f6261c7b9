import { deriveAddress } from 'ripple-keypairs';
import { verifyWalletSignature } from '../../platform/crypto/wallet-signatures.js';
import type { RunInTx } from '../../platform/db/tx.js';
import type { Page, PageParams } from '../../platform/http/pagination.js';
import type { XrplAccountInfo, XrplLedgerPort } from '../../providers/xrpl-ledger/port.js';
import type { UsersService } from '../users/service.js';
import { WalletErrors, type WalletDto } from '../wallets/module.js';
import { toWalletDto, type WalletsService } from '../wallets/service.js';
import { checkAddress } from './xrpl-common.js';
import type { CallContext } from '../../platform/http/context.js';
import type { XrplChallenges } from './xrpl-challenges.js';
import { onLedger, XrplErrors } from './xrpl-errors.js';

export interface KeySignature {
  publicKey: string;
  signature: string;
}

export interface RegisterSecureAccountInput {
  userId?: string;
  address: string;
  challenge: string;
  signatures: KeySignature[];
}

type Proof = 'master' | 'regular' | 'signers';

/**
 * Secure XRPL accounts: an existing account with a SignerList or a regular key, registered by
 * a signature over a challenge by the master key (when not disabled), the regular key, or
 * signers whose weights meet the SignerList quorum (each by its master key or its regular key).
 */
export function createXrplSecureAccounts(deps: {
  tx: RunInTx;
  users: UsersService;
  wallets: WalletsService;
  ledger: XrplLedgerPort;
  network: () => Promise<string>;
  challenges: XrplChallenges;
}) {
  const { tx, users, wallets, ledger, challenges } = deps;
  const network = () => onLedger(deps.network);

  /** Which key signed, and what it is worth for this account. */
  async function proofOf(info: XrplAccountInfo, message: string, signatures: KeySignature[]): Promise<Proof> {
    const seen = new Set<string>();
    let weight = 0;
    const signerAccounts = new Map((info.signerList?.signers ?? []).map((s) => [s.account, s.weight]));
    for (const { publicKey, signature } of signatures) {
      let keyAddress: string;
      try {
        keyAddress = deriveAddress(publicKey.toUpperCase());
      } catch {
        throw XrplErrors.signatureInvalid();
      }
      if (!(await verifyWalletSignature({ chain: 'xrpl', address: keyAddress, message, signature, publicKey }))) throw XrplErrors.signatureInvalid();
      if (keyAddress === info.address && !info.flags.disableMaster) return 'master';
      if (info.regularKey && keyAddress === info.regularKey) return 'regular';
      let signer = signerAccounts.has(keyAddress) ? keyAddress : undefined;
      if (!signer) {
        // A signer may sign with its own regular key.
        for (const account of signerAccounts.keys()) {
          const signerInfo = await onLedger(() => ledger.accountInfo(account));
          if (signerInfo?.regularKey === keyAddress) signer = account;
        }
      }
      if (!signer) throw XrplErrors.signatureInvalid();
      if (!seen.has(signer)) weight += signerAccounts.get(signer)!;
      seen.add(signer);
    }
    const quorum = info.signerList?.quorum ?? 0;
    if (!info.signerList || weight < quorum) throw XrplErrors.quorumNotMet(weight, quorum);
    return 'signers';
  }

  return {
    async register(ctx: CallContext, input: RegisterSecureAccountInput): Promise<{ wallet: WalletDto; created: boolean }> {
      const { tenantId, actor } = ctx;
      const userId = await users.actingFor(ctx, input.userId, WalletErrors.userIdRequired);
      const address = checkAddress(input.address);
      const issued = await challenges.check(tenantId, userId, input.challenge, address);
      const info = await onLedger(() => ledger.accountInfo(address));
      if (!info) throw XrplErrors.accountNotFound();
      if (!info.signerList && !info.regularKey) throw XrplErrors.accountNotSecured();
      const proof = await proofOf(info, issued.message, input.signatures);
      const net = await network();
      return tx(async (db) => {
        await challenges.consume(tenantId, userId, issued, db);
        const details = {
          proof,
          multiSign: Boolean(info.signerList),
          quorum: info.signerList?.quorum ?? null,
          signers: info.signerList?.signers ?? [],
          regularKey: info.regularKey ?? null,
          masterDisabled: info.flags.disableMaster,
          ledgerIndex: info.ledgerIndex,
        };
        const result = await wallets.register(tenantId, userId, { kind: 'xrpl-secure', chain: 'xrpl', network: net, address, details }, { actor, db });
        return { wallet: toWalletDto(result.wallet), created: result.created };
      });
    },

    async list(ctx: CallContext, requested: string | undefined, page: PageParams): Promise<Page<WalletDto>> {
      return users.pageActingFor(ctx, requested, WalletErrors.userIdRequired, (userId) => wallets.pageForUser(ctx.tenantId, userId, { kind: 'xrpl-secure' }, page));
    },

    /** One secure account of the user; another user's, another tenant's or another kind: 404. */
    async get(ctx: CallContext, requested: string | undefined, address: string): Promise<WalletDto> {
      const { tenantId } = ctx;
      const userId = await users.actingFor(ctx, requested, WalletErrors.userIdRequired);
      checkAddress(address);
      const row = await wallets.findByAddress(tenantId, { chain: 'xrpl', network: await network() }, address);
      if (!row || row.userId !== userId || row.kind !== 'xrpl-secure') throw XrplErrors.secureAccountNotFound();
      return toWalletDto(row);
    },
  };
}

export type XrplSecureAccounts = ReturnType<typeof createXrplSecureAccounts>;
