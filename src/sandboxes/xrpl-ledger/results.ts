import { DEFAULT_DEFINITIONS } from 'ripple-binary-codec';

/** rippled's messages for the engine results the stand-in produces (numbers come from the codec's definitions). */
const MESSAGES: Record<string, string> = {
  tesSUCCESS: 'The transaction was applied. Only final in a validated ledger.',
  tecDST_TAG_NEEDED: 'A destination tag is required.',
  tecINSUFFICIENT_RESERVE: 'Insufficient reserve to complete requested operation.',
  tecNO_ALTERNATIVE_KEY: 'The operation would remove the ability to sign transactions with the account.',
  tecNO_DST: 'Destination does not exist.',
  tecNO_DST_INSUF_XRP: 'Destination does not exist. Too little XRP sent to create it.',
  tecNO_LINE: 'No such line.',
  tecNO_LINE_INSUF_RESERVE: 'No such line. Too little reserve to create it.',
  tecNO_PERMISSION: 'No permission to perform requested operation.',
  tecOWNERS: 'Non-zero owner count.',
  tecPATH_DRY: 'Path could not send partial amount.',
  tecPATH_PARTIAL: 'Path could not send full amount.',
  tecUNFUNDED_PAYMENT: 'Insufficient XRP balance to send.',
  tefALREADY: 'The exact transaction was already in this ledger.',
  tefBAD_AUTH: "Transaction's public key is not authorized.",
  tefBAD_AUTH_MASTER: 'Auth for unclaimed account needs correct master key.',
  tefBAD_QUORUM: 'Signatures provided do not meet the quorum.',
  tefBAD_SIGNATURE: 'A signature is provided for a non-signer.',
  tefMASTER_DISABLED: 'Master key is disabled.',
  tefMAX_LEDGER: 'Ledger sequence too high.',
  tefNOT_MULTI_SIGNING: 'Account has no appropriate list of multi-signers.',
  tefPAST_SEQ: 'This sequence number has already passed.',
  telINSUF_FEE_P: 'Fee insufficient.',
  temBAD_AMOUNT: 'Can only send positive amounts.',
  temBAD_CURRENCY: 'Malformed: Bad currency.',
  temBAD_FEE: 'Invalid fee, negative or not XRP.',
  temBAD_LIMIT: 'Limits must be non-negative.',
  temBAD_QUORUM: 'Malformed: Quorum is unreachable.',
  temBAD_REGKEY: 'Malformed: Regular key cannot be same as master key.',
  temBAD_SIGNATURE: 'Malformed: Bad signature.',
  temBAD_SIGNER: 'Malformed: No signer may duplicate account or other signers.',
  temBAD_WEIGHT: 'Malformed: Weight must be a positive value.',
  temDST_IS_SRC: 'Destination may not be source.',
  temINVALID_FLAG: 'The transaction has an invalid flag.',
  temMALFORMED: 'Malformed transaction.',
  temREDUNDANT: 'The transaction is redundant.',
  // An unknown transaction type. Clients act on the code; the text says what the stand-in does.
  temUNKNOWN: 'The transaction type is unknown to this ledger.',
  terINSUF_FEE_B: 'Account balance can not pay fee.',
  terNO_ACCOUNT: 'The source account does not exist.',
  terPRE_SEQ: 'Missing/inapplicable prior transaction.',
};

export type EngineResult = string;

export function resultCode(result: EngineResult): number {
  return DEFAULT_DEFINITIONS.transactionResult.from(result).ordinal;
}

export function resultMessage(result: EngineResult): string {
  return MESSAGES[result] ?? result;
}

/** Results after which the transaction is in the ledger: it consumed its sequence and paid its fee. */
export function isApplied(result: EngineResult): boolean {
  return result === 'tesSUCCESS' || result.startsWith('tec');
}

/** A failure the transactor reports as a tec code. */
export class TecError extends Error {
  constructor(readonly result: EngineResult) {
    super(result);
  }
}

/** A failure before the transaction can be applied (tem, tef, tel, ter): nothing changes. */
export class Rejection extends Error {
  constructor(readonly result: EngineResult) {
    super(result);
  }
}
