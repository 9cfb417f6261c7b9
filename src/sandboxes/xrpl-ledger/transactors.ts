import { isValidClassicAddress } from 'xrpl';
import { ASF, ASF_DISABLE_MASTER, ASF_NO_FREEZE, ASF_REQUIRE_AUTH, LSF, TF } from './flags.js';
import { Rejection, TecError } from './results.js';
import type { TxJson } from '../../providers/xrpl-ledger/signatures.js';
import { compareAccounts, reserve, type ApplyContext } from './context.js';
import { applyIouPayment, applyTrustSet, checkIouAmount } from './trust-lines.js';
import { accountIndex, signerListIndex, type AccountRoot, type SignerList } from './view.js';

export function isDrops(value: unknown): value is string {
  return typeof value === 'string' && /^\d{1,19}$/.test(value) && BigInt(value) <= 100_000_000_000_000_000n;
}

/** Stateless checks of a transaction of a supported type (rippled's preflight); throws tem codes. */
export function preflight(tx: TxJson): void {
  switch (tx.TransactionType) {
    case 'Payment': {
      if (typeof tx.Destination !== 'string' || !isValidClassicAddress(tx.Destination)) throw new Rejection('temDST_NEEDED');
      if (typeof tx.Amount === 'string') {
        if (!isDrops(tx.Amount) || BigInt(tx.Amount) === 0n) throw new Rejection('temBAD_AMOUNT');
        if (tx.Destination === tx.Account) throw new Rejection('temREDUNDANT');
        if (((tx.Flags as number) & TF.partialPayment) !== 0) throw new Rejection('temBAD_SEND_XRP_PARTIAL');
        if (tx.SendMax !== undefined) throw new Rejection('temBAD_SEND_XRP_MAX');
        if (tx.Paths !== undefined) throw new Rejection('temBAD_SEND_XRP_PATHS');
      } else {
        checkIouAmount(tx.Amount, false);
        if (tx.Destination === tx.Account) throw new Rejection('temREDUNDANT');
        // Only direct issuer<->holder and holder->holder payments through one issuer are modelled.
        if (tx.SendMax !== undefined || tx.Paths !== undefined || ((tx.Flags as number) & TF.partialPayment) !== 0) throw new Rejection('temUNKNOWN');
      }
      return;
    }
    case 'AccountSet':
      if (tx.SetFlag !== undefined && tx.SetFlag === tx.ClearFlag) throw new Rejection('temINVALID_FLAG');
      return;
    case 'SetRegularKey':
      if (tx.RegularKey !== undefined && (typeof tx.RegularKey !== 'string' || tx.RegularKey === tx.Account)) throw new Rejection('temBAD_REGKEY');
      return;
    case 'SignerListSet': {
      const quorum = tx.SignerQuorum;
      const entries = tx.SignerEntries as { SignerEntry: { Account: string; SignerWeight: number } }[] | undefined;
      if (typeof quorum !== 'number') throw new Rejection('temMALFORMED');
      if (quorum === 0) {
        if (entries !== undefined) throw new Rejection('temMALFORMED');
        return;
      }
      if (!Array.isArray(entries) || entries.length < 1 || entries.length > 32) throw new Rejection('temMALFORMED');
      const seen = new Set<string>();
      let total = 0;
      for (const { SignerEntry: entry } of entries) {
        if (!entry || entry.Account === tx.Account || seen.has(entry.Account)) throw new Rejection('temBAD_SIGNER');
        seen.add(entry.Account);
        if (!(entry.SignerWeight > 0)) throw new Rejection('temBAD_WEIGHT');
        total += entry.SignerWeight;
      }
      if (quorum > total) throw new Rejection('temBAD_QUORUM');
      return;
    }
    case 'TrustSet':
      checkIouAmount(tx.LimitAmount, true);
      if ((tx.LimitAmount as { issuer: string }).issuer === tx.Account) throw new Rejection('temDST_IS_SRC');
      return;
    default:
      throw new Rejection('temUNKNOWN');
  }
}

/** Applies a transaction whose fee and sequence are already taken; throws TecError for tec results. */
export function doApply(ctx: ApplyContext): void {
  switch (ctx.tx.TransactionType) {
    case 'Payment':
      return typeof ctx.tx.Amount === 'string' ? applyXrpPayment(ctx) : applyIouPayment(ctx);
    case 'AccountSet':
      return applyAccountSet(ctx);
    case 'SetRegularKey':
      return applySetRegularKey(ctx);
    case 'SignerListSet':
      return applySignerListSet(ctx);
    case 'TrustSet':
      return applyTrustSet(ctx);
    default:
      throw new Rejection('temUNKNOWN');
  }
}

function source(ctx: ApplyContext): AccountRoot {
  const account = ctx.view.account(ctx.tx.Account);
  if (!account) throw new Rejection('terNO_ACCOUNT');
  return account;
}

function applyXrpPayment(ctx: ApplyContext): void {
  const { view, tx, fees } = ctx;
  const amount = BigInt(tx.Amount as string);
  const from = source(ctx);
  const destination = tx.Destination as string;
  let to = view.account(destination);
  if (!to) {
    if (amount < reserve(fees, 0)) throw new TecError('tecNO_DST_INSUF_XRP');
    to = { LedgerEntryType: 'AccountRoot', index: accountIndex(destination), Account: destination, Balance: '0', Flags: 0, OwnerCount: 0, Sequence: ctx.ledgerIndex };
  } else {
    if (to.Flags & LSF.requireDestTag && tx.DestinationTag === undefined) throw new TecError('tecDST_TAG_NEEDED');
    // DepositAuth: only the exception for small payments to an account at or below the base reserve.
    const small = BigInt(to.Balance) <= reserve(fees, 0) && amount <= reserve(fees, 0);
    if (to.Flags & LSF.depositAuth && !small) throw new TecError('tecNO_PERMISSION');
  }
  const fee = BigInt(tx.Fee as string);
  const needed = amount + (reserve(fees, from.OwnerCount) > fee ? reserve(fees, from.OwnerCount) : fee);
  if (ctx.priorBalance < needed) throw new TecError('tecUNFUNDED_PAYMENT');
  from.Balance = (BigInt(from.Balance) - amount).toString();
  to.Balance = (BigInt(to.Balance) + amount).toString();
  view.write(from);
  view.write(to);
}

function applyAccountSet(ctx: ApplyContext): void {
  const { view, tx } = ctx;
  const account = source(ctx);
  const txFlags = (tx.Flags as number | undefined) ?? 0;
  let flags = account.Flags;
  const setFlag = tx.SetFlag as number | undefined;
  const clearFlag = tx.ClearFlag as number | undefined;
  if (setFlag === ASF_DISABLE_MASTER && !(flags & LSF.disableMaster)) {
    if (!ctx.signedWithMaster) throw new TecError('tecNEED_MASTER_KEY');
    if (!account.RegularKey && !view.read(signerListIndex(tx.Account))) throw new TecError('tecNO_ALTERNATIVE_KEY');
  }
  if (setFlag === ASF_NO_FREEZE && !ctx.signedWithMaster) throw new TecError('tecNEED_MASTER_KEY');
  if (setFlag === ASF_REQUIRE_AUTH && !(flags & LSF.requireAuth) && account.OwnerCount > 0) throw new TecError('tecOWNERS');
  if (setFlag !== undefined && ASF[setFlag] !== undefined) flags |= ASF[setFlag]!;
  // NoFreeze, once set, cannot be cleared.
  if (clearFlag !== undefined && ASF[clearFlag] !== undefined && clearFlag !== ASF_NO_FREEZE) flags &= ~ASF[clearFlag]!;
  if (txFlags & TF.requireDestTag) flags |= LSF.requireDestTag;
  if (txFlags & TF.optionalDestTag) flags &= ~LSF.requireDestTag;
  if (txFlags & TF.requireAuth) flags |= LSF.requireAuth;
  if (txFlags & TF.optionalAuth) flags &= ~LSF.requireAuth;
  if (txFlags & TF.disallowXRP) flags |= LSF.disallowXRP;
  if (txFlags & TF.allowXRP) flags &= ~LSF.disallowXRP;
  account.Flags = flags >>> 0;
  if (typeof tx.Domain === 'string') {
    if (tx.Domain === '') delete account.Domain;
    else account.Domain = tx.Domain;
  }
  view.write(account);
}

function applySetRegularKey(ctx: ApplyContext): void {
  const { view, tx } = ctx;
  const account = source(ctx);
  if (typeof tx.RegularKey === 'string') {
    account.RegularKey = tx.RegularKey;
  } else {
    if (account.Flags & LSF.disableMaster && !view.read(signerListIndex(tx.Account))) throw new TecError('tecNO_ALTERNATIVE_KEY');
    delete account.RegularKey;
  }
  view.write(account);
}

function applySignerListSet(ctx: ApplyContext): void {
  const { view, tx, fees } = ctx;
  const account = source(ctx);
  const index = signerListIndex(tx.Account);
  const existing = view.read<SignerList>(index);
  if (tx.SignerQuorum === 0) {
    if (account.Flags & LSF.disableMaster && !account.RegularKey) throw new TecError('tecNO_ALTERNATIVE_KEY');
    if (existing) {
      view.erase(index);
      account.OwnerCount -= 1;
      view.write(account);
    }
    return;
  }
  if (!existing) {
    if (ctx.priorBalance < reserve(fees, account.OwnerCount + 1)) throw new TecError('tecINSUFFICIENT_RESERVE');
    account.OwnerCount += 1;
    view.write(account);
  }
  const entries = [...(tx.SignerEntries as SignerList['SignerEntries'])].sort((a, b) => compareAccounts(a.SignerEntry.Account, b.SignerEntry.Account));
  view.write({
    LedgerEntryType: 'SignerList',
    index,
    Flags: 0x00010000, // lsfOneOwnerCount: the list counts once toward the reserve
    OwnerNode: '0',
    SignerListID: 0,
    SignerQuorum: tx.SignerQuorum as number,
    SignerEntries: entries.map((e) => ({ SignerEntry: { Account: e.SignerEntry.Account, SignerWeight: e.SignerEntry.SignerWeight } })),
  } as SignerList);
}

