import { deriveAddress } from 'ripple-keypairs';
import { signersOf, type TxJson } from '../../providers/xrpl-ledger/signatures.js';
import { LSF } from './flags.js';
import { Rejection } from './results.js';
import { signerListIndex, type SignerList, type View } from './view.js';

/**
 * Whether the (already verified) signatures may act for the account, as rippled's
 * Transactor::checkSign: the master key unless disabled, the regular key, or signers of the
 * account's SignerList whose weights reach the quorum. Throws the tef result otherwise.
 */
export function checkAuthorization(view: View, tx: TxJson): void {
  const account = view.account(tx.Account);
  if (!account) throw new Rejection('terNO_ACCOUNT');
  const signers = signersOf(tx);
  if (signers.length === 0) {
    const signer = deriveAddress(tx.SigningPubKey as string);
    if (signer === tx.Account) {
      if (account.Flags & LSF.disableMaster) throw new Rejection('tefMASTER_DISABLED');
      return;
    }
    if (account.RegularKey === signer) return;
    throw new Rejection(account.RegularKey ? 'tefBAD_AUTH' : 'tefBAD_AUTH_MASTER');
  }
  const list = view.read<SignerList>(signerListIndex(tx.Account));
  if (!list) throw new Rejection('tefNOT_MULTI_SIGNING');
  const weights = new Map(list.SignerEntries.map((e) => [e.SignerEntry.Account, e.SignerEntry.SignerWeight]));
  let weight = 0;
  for (const signer of signers) {
    const entryWeight = weights.get(signer.Account);
    if (entryWeight === undefined) throw new Rejection('tefBAD_SIGNATURE');
    const keyAccount = deriveAddress(signer.SigningPubKey);
    const signerRoot = view.account(signer.Account);
    if (keyAccount === signer.Account) {
      // A signer's master key counts unless that account exists with its master key disabled.
      if (signerRoot && signerRoot.Flags & LSF.disableMaster) throw new Rejection('tefMASTER_DISABLED');
    } else if (!signerRoot || signerRoot.RegularKey !== keyAccount) {
      throw new Rejection('tefBAD_SIGNATURE');
    }
    weight += entryWeight;
  }
  if (weight < list.SignerQuorum) throw new Rejection('tefBAD_QUORUM');
}

/** Whether a single signature was made with the account's master key. */
export function signedWithMaster(tx: TxJson): boolean {
  return typeof tx.SigningPubKey === 'string' && tx.SigningPubKey !== '' && deriveAddress(tx.SigningPubKey) === tx.Account;
}
