import { StandardMerkleTree } from '@openzeppelin/merkle-tree';
import type { Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { commitment, identityEntries, identityProof, identityTree, LEAF_ENCODING, sameEntries } from '../../src/modules/identity/tree.js';
import { ozCommitment, ozLeaf, ozVerify } from '../helpers/merkle.js';

const salt = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const FIELDS: Record<string, string> = {
  'wallets.evm.0': '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  'kyc.status': 'approved',
  'kyc.country': 'DE',
  'accreditation.status': 'approved',
  'name': 'Zoë Ünicode 名前',
};
const SALTS = new Map(Object.keys(FIELDS).map((path, i) => [path, salt(i + 1)]));

describe('identity commitments', () => {
  it.each(Object.entries(FIELDS))('the commitment of %s is keccak256(abi.encode(bytes32 salt, string value))', (path, value) => {
    expect(commitment(SALTS.get(path)!, value)).toBe(ozCommitment(SALTS.get(path)!, value));
  });

  it('another salt or another value gives another commitment', () => {
    expect(commitment(salt(1), 'approved')).not.toBe(commitment(salt(2), 'approved'));
    expect(commitment(salt(1), 'approved')).not.toBe(commitment(salt(1), 'declined'));
    expect(commitment(salt(1), '')).toMatch(/^0x[0-9a-f]{64}$/);
  });
});

describe('identityEntries', () => {
  it('lists the fields in path order with their salts and commitments', () => {
    const entries = identityEntries(FIELDS, SALTS)!;
    expect(entries.map((e) => e.path)).toEqual(Object.keys(FIELDS).sort());
    for (const e of entries) {
      expect(e.value).toBe(FIELDS[e.path]);
      expect(e.salt).toBe(SALTS.get(e.path));
      expect(e.commitment).toBe(ozCommitment(e.salt, e.value));
    }
  });

  it('is undefined while a field has no salt', () => {
    expect(identityEntries({ ...FIELDS, 'kyc.level': '2' }, SALTS)).toBeUndefined();
  });

  it('does not depend on the order the sources gave the fields in', () => {
    const reversed = Object.fromEntries(Object.entries(FIELDS).reverse());
    expect(sameEntries(identityEntries(reversed, SALTS)!, identityEntries(FIELDS, SALTS)!)).toBe(true);
  });

  it('sameEntries sees a changed value, a missing field and an extra one', () => {
    const base = identityEntries(FIELDS, SALTS)!;
    expect(sameEntries(base, identityEntries({ ...FIELDS, 'kyc.status': 'declined' }, SALTS)!)).toBe(false);
    expect(sameEntries(base, base.slice(1))).toBe(false);
    expect(sameEntries(base.slice(1), base)).toBe(false);
    expect(sameEntries([], [])).toBe(true);
  });
});

describe('identity tree and proofs (OpenZeppelin MerkleProof, checked independently)', () => {
  const entries = identityEntries(FIELDS, SALTS)!;
  const { root, dump } = identityTree(entries);
  // The dump is stored as JSON; proofs are read from the stored form.
  const stored: unknown = JSON.parse(JSON.stringify(dump));

  it.each(entries.map((e) => [e.path, e] as const))('the proof of %s verifies against the root', (_path, entry) => {
    const { leaf, proof } = identityProof(stored, entry);
    expect(leaf).toBe(ozLeaf(entry.path, entry.commitment));
    expect(ozVerify(root, leaf as Hex, proof)).toBe(true);
    expect(StandardMerkleTree.verify(root, [...LEAF_ENCODING], [entry.path, entry.commitment], proof)).toBe(true);
  });

  it('a proof does not verify another value, another path or another root', () => {
    const entry = entries.find((e) => e.path === 'kyc.status')!;
    const { proof } = identityProof(stored, entry);
    expect(ozVerify(root, ozLeaf(entry.path, ozCommitment(entry.salt, 'declined')), proof)).toBe(false);
    expect(ozVerify(root, ozLeaf('kyc.country', entry.commitment), proof)).toBe(false);
    const changed = identityTree(identityEntries({ ...FIELDS, 'kyc.country': 'FR' }, SALTS)!);
    expect(changed.root).not.toBe(root);
    expect(ozVerify(changed.root, ozLeaf(entry.path, entry.commitment), proof)).toBe(false);
  });

  it('a tree of one leaf has that leaf as root and an empty proof', () => {
    const single = identityEntries({ 'kyc.status': 'approved' }, SALTS)!;
    const tree = identityTree(single);
    const { leaf, proof } = identityProof(tree.dump, single[0]!);
    expect(proof).toEqual([]);
    expect(tree.root).toBe(leaf);
  });

  it('there is no proof of an entry not in the tree', () => {
    expect(() => identityProof(stored, { path: 'kyc.level', commitment: commitment(salt(9), '2') })).toThrow();
  });

  it('the root is the same for the same entries (deterministic)', () => {
    expect(identityTree(identityEntries(FIELDS, SALTS)!).root).toBe(root);
  });
});
