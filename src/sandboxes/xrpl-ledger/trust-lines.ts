import BigNumber from 'bignumber.js';
import { isValidClassicAddress } from 'xrpl';
import { LINE, LSF, TF } from './flags.js';
import { Rejection, TecError } from './results.js';
import { compareAccounts, reserve, type ApplyContext } from './context.js';
import { trustLineIndex, type IouAmount, type RippleState, type View } from './view.js';

const ACCOUNT_ONE = 'rrrrrrrrrrrrrrrrrrrrBZbvji';
const Decimal = BigNumber.clone({ EXPONENTIAL_AT: [-30, 40] });

/** An issued amount's value as rippled keeps it: at most 15 significant digits. */
export function normalizeValue(value: BigNumber.Value): string {
  return new Decimal(new Decimal(value).toPrecision(15)).toString();
}

/** Checks an issued-currency amount (tem codes); `allowZero` for trust limits. */
export function checkIouAmount(amount: unknown, allowZero: boolean): asserts amount is IouAmount {
  const a = amount as Partial<IouAmount> | undefined;
  if (!a || typeof a !== 'object') throw new Rejection('temBAD_AMOUNT');
  if (typeof a.currency !== 'string' || a.currency === 'XRP' || !/^([A-Za-z0-9?!@#$%^&*<>(){}[\]|]{3}|[0-9A-F]{40})$/.test(a.currency)) throw new Rejection('temBAD_CURRENCY');
  if (typeof a.issuer !== 'string' || !isValidClassicAddress(a.issuer)) throw new Rejection('temBAD_ISSUER');
  const value = new Decimal(typeof a.value === 'string' ? a.value : NaN);
  if (!value.isFinite()) throw new Rejection('temBAD_AMOUNT');
  if (value.isNegative()) throw new Rejection(allowZero ? 'temBAD_LIMIT' : 'temBAD_AMOUNT');
  if (!allowZero && value.isZero()) throw new Rejection('temBAD_AMOUNT');
}

const side = (line: RippleState, account: string) => {
  const low = line.LowLimit.issuer === account;
  return {
    low,
    limit: low ? line.LowLimit : line.HighLimit,
    peerLimit: low ? line.HighLimit : line.LowLimit,
    reserveFlag: low ? LINE.lowReserve : LINE.highReserve,
    noRipple: low ? LINE.lowNoRipple : LINE.highNoRipple,
    peerNoRipple: low ? LINE.highNoRipple : LINE.lowNoRipple,
    auth: low ? LINE.lowAuth : LINE.highAuth,
    peerAuth: low ? LINE.highAuth : LINE.lowAuth,
    freeze: low ? LINE.lowFreeze : LINE.highFreeze,
    peerFreeze: low ? LINE.highFreeze : LINE.lowFreeze,
  };
};

/** What `account` holds on the line (positive: the peer owes it). */
export function balanceOf(line: RippleState, account: string): BigNumber {
  const value = new Decimal(line.Balance.value);
  return line.LowLimit.issuer === account ? value : value.negated();
}

function setBalanceOf(line: RippleState, account: string, held: BigNumber): void {
  line.Balance = { ...line.Balance, value: normalizeValue(line.LowLimit.issuer === account ? held : held.negated()) };
}

export function readLine(view: View, a: string, b: string, currency: string): RippleState | undefined {
  return view.read<RippleState>(trustLineIndex(a, b, currency));
}

/** The account_lines view of a line from `account`'s side. */
export function lineForAccount(line: RippleState, account: string): Record<string, unknown> {
  const s = side(line, account);
  return {
    account: s.peerLimit.issuer,
    balance: normalizeValue(balanceOf(line, account)),
    currency: line.Balance.currency,
    limit: s.limit.value,
    limit_peer: s.peerLimit.value,
    no_ripple: (line.Flags & s.noRipple) !== 0,
    no_ripple_peer: (line.Flags & s.peerNoRipple) !== 0,
    quality_in: 0,
    quality_out: 0,
    ...(line.Flags & s.auth ? { authorized: true } : {}),
    ...(line.Flags & s.peerAuth ? { peer_authorized: true } : {}),
    ...(line.Flags & s.freeze ? { freeze: true } : {}),
    ...(line.Flags & s.peerFreeze ? { freeze_peer: true } : {}),
  };
}

export function applyTrustSet(ctx: ApplyContext): void {
  const { view, tx, fees } = ctx;
  const limit = tx.LimitAmount as IouAmount;
  const issuer = view.account(limit.issuer);
  if (!issuer) throw new TecError('tecNO_DST');
  const account = view.account(tx.Account)!;
  const flags = (tx.Flags as number | undefined) ?? 0;
  const index = trustLineIndex(tx.Account, limit.issuer, limit.currency);
  let line = view.read<RippleState>(index);
  let created = false;
  if (!line) {
    const setsSomething = flags & (TF.setNoRipple | TF.setFreeze | TF.setfAuth);
    if (new Decimal(limit.value).isZero() && !setsSomething) throw new TecError('tecNO_LINE_REDUNDANT');
    // The first two owned objects need no extra reserve for a trust line (rippled's rule).
    const needed = account.OwnerCount < 2 ? 0n : reserve(fees, account.OwnerCount + 1);
    if (ctx.priorBalance < needed) throw new TecError('tecNO_LINE_INSUF_RESERVE');
    const accountIsLow = compareAccounts(tx.Account, limit.issuer) < 0;
    const [low, high] = accountIsLow ? [account, issuer] : [issuer, account];
    // The peer's side blocks rippling unless the peer has DefaultRipple; the creator's side
    // allows it unless the transaction sets tfSetNoRipple (below).
    let lineFlags = 0;
    if (!(issuer.Flags & LSF.defaultRipple)) lineFlags |= accountIsLow ? LINE.highNoRipple : LINE.lowNoRipple;
    line = {
      LedgerEntryType: 'RippleState',
      index,
      Balance: { currency: limit.currency, issuer: ACCOUNT_ONE, value: '0' },
      LowLimit: { currency: limit.currency, issuer: low.Account, value: '0' },
      HighLimit: { currency: limit.currency, issuer: high.Account, value: '0' },
      Flags: lineFlags,
      LowNode: '0',
      HighNode: '0',
    };
    created = true;
  }
  const s = side(line, tx.Account);
  s.limit.value = normalizeValue(limit.value);
  if (flags & TF.setNoRipple) line.Flags |= s.noRipple;
  if (flags & TF.clearNoRipple) line.Flags &= ~s.noRipple;
  if (flags & TF.setFreeze) line.Flags |= s.freeze;
  if (flags & TF.clearFreeze) line.Flags &= ~s.freeze;
  if (flags & TF.setfAuth) line.Flags |= s.auth;
  const needsReserve = !new Decimal(s.limit.value).isZero() || balanceOf(line, tx.Account).isPositive() && !balanceOf(line, tx.Account).isZero() || (line.Flags & s.freeze) !== 0;
  const hadReserve = !created && (line.Flags & s.reserveFlag) !== 0;
  if (needsReserve && !hadReserve) {
    line.Flags |= s.reserveFlag;
    account.OwnerCount += 1;
  } else if (!needsReserve && hadReserve) {
    line.Flags &= ~s.reserveFlag;
    account.OwnerCount -= 1;
  }
  line.Flags >>>= 0;
  view.write(account);
  if (!(line.Flags & (LINE.lowReserve | LINE.highReserve)) && new Decimal(line.Balance.value).isZero()) {
    if (!created) view.erase(index);
  } else {
    view.write(line);
  }
}

/**
 * An issued-currency Payment without paths: the issuer issuing to a holder, a holder redeeming
 * to the issuer, or one holder paying another through the issuer, which needs the issuer's
 * side of both lines to allow rippling (asfDefaultRipple when the lines were made, or cleared NoRipple).
 * RequireAuth (lines the issuer authorized), freezes (individual and global) and DepositAuth apply.
 */
export function applyIouPayment(ctx: ApplyContext): void {
  const { view, tx } = ctx;
  const amount = tx.Amount as IouAmount;
  const value = new Decimal(amount.value);
  const destination = tx.Destination as string;
  const to = view.account(destination);
  if (!to) throw new TecError('tecNO_DST');
  if (to.Flags & LSF.requireDestTag && tx.DestinationTag === undefined) throw new TecError('tecDST_TAG_NEEDED');
  if (to.Flags & LSF.depositAuth && destination !== tx.Account) throw new TecError('tecNO_PERMISSION');
  const issuer = view.account(amount.issuer);
  if (!issuer) throw new TecError('tecNO_ISSUER');
  // With RequireAuth, the issuer must have authorized the holder's line (tfSetfAuth).
  const authorized = (line: RippleState) => !(issuer.Flags & LSF.requireAuth) || (line.Flags & side(line, amount.issuer).auth) !== 0;
  const credit = (holder: string) => {
    const line = readLine(view, holder, amount.issuer, amount.currency);
    if (!line || !authorized(line)) throw new TecError('tecPATH_DRY');
    const after = balanceOf(line, holder).plus(value);
    if (after.isGreaterThan(side(line, holder).limit.value)) throw new TecError('tecPATH_PARTIAL');
    setBalanceOf(line, holder, after);
    return line;
  };
  const debit = (holder: string) => {
    const line = readLine(view, holder, amount.issuer, amount.currency);
    if (!line || !authorized(line)) throw new TecError('tecPATH_DRY');
    const after = balanceOf(line, holder).minus(value);
    if (after.isNegative()) throw new TecError('tecPATH_PARTIAL');
    setBalanceOf(line, holder, after);
    return line;
  };
  if (tx.Account === amount.issuer) {
    view.write(credit(destination));
  } else if (destination === amount.issuer) {
    view.write(debit(tx.Account));
  } else {
    const out = debit(tx.Account);
    const into = credit(destination);
    const issuerSide = (line: RippleState) => side(line, amount.issuer);
    if (out.Flags & issuerSide(out).noRipple || into.Flags & issuerSide(into).noRipple) throw new TecError('tecPATH_DRY');
    // A frozen line (or a global freeze) can only pay the issuer back.
    const frozen = (line: RippleState) => (line.Flags & issuerSide(line).freeze) !== 0;
    if (issuer.Flags & LSF.globalFreeze || frozen(out) || frozen(into)) throw new TecError('tecPATH_DRY');
    view.write(out);
    view.write(into);
  }
}
