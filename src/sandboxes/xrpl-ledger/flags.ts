/** AccountRoot flags (lsf*) and the AccountSet / TrustSet / Payment flags that change them. */
export const LSF = {
  passwordSpent: 0x00010000,
  requireDestTag: 0x00020000,
  requireAuth: 0x00040000,
  disallowXRP: 0x00080000,
  disableMaster: 0x00100000,
  noFreeze: 0x00200000,
  globalFreeze: 0x00400000,
  defaultRipple: 0x00800000,
  depositAuth: 0x01000000,
} as const;

/** AccountSet SetFlag/ClearFlag values (asf*) the stand-in applies, and the flag each controls. */
export const ASF: Record<number, number> = {
  1: LSF.requireDestTag,
  2: LSF.requireAuth,
  3: LSF.disallowXRP,
  4: LSF.disableMaster,
  6: LSF.noFreeze,
  7: LSF.globalFreeze,
  8: LSF.defaultRipple,
  9: LSF.depositAuth,
};
export const ASF_DISABLE_MASTER = 4;
export const ASF_NO_FREEZE = 6;
export const ASF_REQUIRE_AUTH = 2;

/** RippleState flags. */
export const LINE = {
  lowReserve: 0x00010000,
  highReserve: 0x00020000,
  lowAuth: 0x00040000,
  highAuth: 0x00080000,
  lowNoRipple: 0x00100000,
  highNoRipple: 0x00200000,
  lowFreeze: 0x00400000,
  highFreeze: 0x00800000,
} as const;

export const TF_UNIVERSAL = 0x80000000;
export const TF = {
  // AccountSet
  requireDestTag: 0x00010000,
  optionalDestTag: 0x00020000,
  requireAuth: 0x00040000,
  optionalAuth: 0x00080000,
  disallowXRP: 0x00100000,
  allowXRP: 0x00200000,
  // Payment
  noRippleDirect: 0x00010000,
  partialPayment: 0x00020000,
  limitQuality: 0x00040000,
  // TrustSet
  setfAuth: 0x00010000,
  setNoRipple: 0x00020000,
  clearNoRipple: 0x00040000,
  setFreeze: 0x00100000,
  clearFreeze: 0x00200000,
} as const;

/** The flags each supported transaction type accepts (anything else is temINVALID_FLAG). */
export const ALLOWED_TX_FLAGS: Record<string, number> = {
  Payment: TF_UNIVERSAL | TF.noRippleDirect | TF.partialPayment | TF.limitQuality,
  AccountSet: TF_UNIVERSAL | TF.requireDestTag | TF.optionalDestTag | TF.requireAuth | TF.optionalAuth | TF.disallowXRP | TF.allowXRP,
  SetRegularKey: TF_UNIVERSAL,
  SignerListSet: TF_UNIVERSAL,
  TrustSet: TF_UNIVERSAL | TF.setfAuth | TF.setNoRipple | TF.clearNoRipple | TF.setFreeze | TF.clearFreeze,
};

/** account_info's `account_flags` (API v2) from an AccountRoot's Flags. */
export function accountFlags(flags: number): Record<string, boolean> {
  return {
    defaultRipple: (flags & LSF.defaultRipple) !== 0,
    depositAuth: (flags & LSF.depositAuth) !== 0,
    disableMasterKey: (flags & LSF.disableMaster) !== 0,
    disallowIncomingXRP: (flags & LSF.disallowXRP) !== 0,
    globalFreeze: (flags & LSF.globalFreeze) !== 0,
    noFreeze: (flags & LSF.noFreeze) !== 0,
    passwordSpent: (flags & LSF.passwordSpent) !== 0,
    requireAuthorization: (flags & LSF.requireAuth) !== 0,
    requireDestinationTag: (flags & LSF.requireDestTag) !== 0,
  };
}
