import { StandardMerkleTree } from '@openzeppelin/merkle-tree';
import type { Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { commitment, identityEntries, identityProof, identityTree, leafHash, LEAF_ENCODING, sameEntries } from '../../src/modules/identity/tree.js';
import type { IdentityEntry } from '../../src/modules/identity/table.js';
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

  it('a proof rests on its own leaf and the root: a changed leaf of its own, or a dump of another kind, gives none', () => {
    const entry = entries.find((e) => e.path === 'kyc.status')!;
    const d = stored as { tree: string[]; values: Array<{ value: [string, string]; treeIndex: number }> };
    const at = d.values.find((v) => v.value[0] === entry.path)!.treeIndex;
    // The tree's node of this leaf altered: hashed again, the leaf is not where the dump says.
    const altered = { ...d, tree: d.tree.map((h, i) => (i === at ? `0x${'12'.repeat(32)}` : h)) };
    expect(() => identityProof(altered, entry)).toThrow();
    // The root altered: no proof reaches it.
    expect(() => identityProof({ ...d, tree: [`0x${'34'.repeat(32)}`, ...d.tree.slice(1)] }, entry)).toThrow();
    for (const other of [{ ...d, format: 'simple-v1' }, { ...d, leafEncoding: ['bytes32', 'string'] }, null, {}]) {
      expect(() => identityProof(other, entry)).toThrow();
    }
  });

  it('the root is the same for the same entries (deterministic)', () => {
    expect(identityTree(identityEntries(FIELDS, SALTS)!).root).toBe(root);
  });
});

describe('identity tree, built as StandardMerkleTree.of builds it', () => {
  // Deterministic pseudo-random entries (no Math.random: a failure must be repeatable).
  const entriesOf = (n: number, seed: number): IdentityEntry[] => {
    const fields: Record<string, string> = {};
    for (let i = 0; i < n; i++) fields[`field.${seed}.${i}`] = `value ${seed * 31 + i} ${'é'.repeat(i % 3)}`;
    return identityEntries(fields, new Map(Object.keys(fields).map((p, i) => [p, salt(seed * 1000 + i + 1)])))!;
  };
  const ofLibrary = (entries: IdentityEntry[]) =>
    StandardMerkleTree.of(
      entries.map((e) => [e.path, e.commitment]),
      [...LEAF_ENCODING],
    ).dump();

  it('the leaf hash is the library\'s', () => {
    for (const e of entriesOf(6, 3)) expect(leafHash(e.path, e.commitment)).toBe(ozLeaf(e.path, e.commitment));
  });

  it.each([1, 2, 3, 5, 8, 13])('a tree of %i leaves has the dump StandardMerkleTree.of gives', (n) => {
    const entries = entriesOf(n, n);
    const { root, dump } = identityTree(entries);
    expect(dump).toEqual(ofLibrary(entries));
    expect(root).toBe(StandardMerkleTree.of(entries.map((e) => [e.path, e.commitment]), [...LEAF_ENCODING]).root);
  });

  it('with the previous version\'s dump, a changed, an added and a removed field give the dump of their own tree', () => {
    const before = entriesOf(7, 7);
    const previous = JSON.parse(JSON.stringify(identityTree(before).dump)) as unknown;
    const changed = before.filter((e) => e.path !== before[2]!.path).map((e, i) => (i === 0 ? { ...e, value: 'changed', commitment: commitment(e.salt, 'changed') } : e));
    changed.push({ path: 'field.new', value: 'new', salt: salt(77), commitment: commitment(salt(77), 'new') });
    changed.sort((a, b) => (a.path < b.path ? -1 : 1));
    expect(identityTree(changed, previous).dump).toEqual(ofLibrary(changed));
  });

  it('takes the unchanged leaves from the previous dump, and only from one of its own encoding', () => {
    const entries = entriesOf(4, 4);
    const dump = JSON.parse(JSON.stringify(identityTree(entries).dump)) as { tree: string[]; values: Array<{ treeIndex: number }>; leafEncoding: string[] };
    // A stored leaf hash is used as stored (the proofs of that version are served from it):
    // marked, it shows in the tree built from it.
    const marked = `0x${'ab'.repeat(32)}`;
    const tampered = { ...dump, tree: dump.tree.map((h, i) => (i === dump.values[0]!.treeIndex ? marked : h)) };
    expect(identityTree(entries, tampered).dump).toMatchObject({ tree: expect.arrayContaining([marked]) as unknown });
    // Another encoding, another format, or no dump: every leaf is hashed.
    for (const other of [{ ...tampered, leafEncoding: ['bytes32', 'string'] }, { ...tampered, format: 'simple-v1' }, null, 'x']) {
      expect(identityTree(entries, other).dump).toEqual(ofLibrary(entries));
    }
  });
});

describe('identityEntries with the previous version', () => {
  const previous = identityEntries(FIELDS, SALTS)!;

  it('keeps the stored commitment of a field whose salt and value are unchanged, and computes the others', () => {
    // A marked commitment shows which were kept.
    const marked = previous.map((e) => ({ ...e, commitment: `0x${'cd'.repeat(32)}` }));
    const next = identityEntries({ ...FIELDS, 'kyc.status': 'declined' }, SALTS, marked)!;
    for (const e of next) {
      if (e.path === 'kyc.status') expect(e.commitment).toBe(ozCommitment(e.salt, 'declined'));
      else expect(e.commitment).toBe(`0x${'cd'.repeat(32)}`);
    }
  });

  it('computes the commitment again when the salt differs', () => {
    const otherSalts = new Map([...SALTS].map(([p, s]) => [p, p === 'kyc.country' ? salt(99) : s]));
    const next = identityEntries(FIELDS, otherSalts, previous)!;
    expect(next.find((e) => e.path === 'kyc.country')!.commitment).toBe(ozCommitment(salt(99), 'DE'));
  });
});
