import { StandardMerkleTree } from '@openzeppelin/merkle-tree';
import { encodeAbiParameters, keccak256, type Hex } from 'viem';
import type { IdentityEntry } from './table.js';

/** The tree's leaf encoding: [path, keccak256(abi.encode(bytes32 salt, string value))]. */
export const LEAF_ENCODING = ['string', 'bytes32'] as const;

const COMMITMENT_PARAMS = [{ type: 'bytes32' }, { type: 'string' }] as const;
const LEAF_PARAMS = [{ type: 'string' }, { type: 'bytes32' }] as const;

/** The salted commitment to one value; the leaf of the tree carries it beside the path. */
export function commitment(salt: string, value: string): string {
  return keccak256(encodeAbiParameters(COMMITMENT_PARAMS, [salt as Hex, value]));
}

/**
 * StandardMerkleTree's leaf hash of [path, commitment] under LEAF_ENCODING:
 * keccak256(keccak256(abi.encode(string path, bytes32 commitment))), encoded by viem. The
 * library's own (@metamask/abi-utils, which validates by throwing and catching) took 2.3 times
 * as long, and a KYC decision builds a tree.
 */
export function leafHash(path: string, commitment: string): string {
  return keccak256(keccak256(encodeAbiParameters(LEAF_PARAMS, [path, commitment as Hex]), 'bytes'));
}

/**
 * The leaves of `fields` with these salts, in path order; undefined when a field has no salt
 * yet. A field whose path, salt and value are those of an entry of `previous` (the user's
 * latest stored version) keeps that entry's commitment, a function of the salt and value alone.
 */
export function identityEntries(fields: Record<string, string>, salts: ReadonlyMap<string, string>, previous: readonly IdentityEntry[] = []): IdentityEntry[] | undefined {
  const before = new Map(previous.map((e) => [e.path, e]));
  const entries: IdentityEntry[] = [];
  for (const path of Object.keys(fields).sort()) {
    const salt = salts.get(path);
    if (!salt) return undefined;
    const value = fields[path]!;
    const known = before.get(path);
    entries.push({ path, value, salt, commitment: known && known.salt === salt && known.value === value ? known.commitment : commitment(salt, value) });
  }
  return entries;
}

/** Same leaves in the same order (a stored version still current). */
export function sameEntries(a: IdentityEntry[], b: IdentityEntry[]): boolean {
  return a.length === b.length && a.every((e, i) => e.path === b[i]!.path && e.commitment === b[i]!.commitment);
}

/** Where a leaf hash can be read from: `path` and `commitment` joined by a character neither holds. */
const leafKey = (path: string, commitment: string) => `${path}\u0000${commitment}`;

type TreeDump = Parameters<typeof StandardMerkleTree.load<[string, string]>>[0];

/** The dump when it is a StandardMerkleTree's of LEAF_ENCODING (format and encoding), else undefined. */
function identityDump(dump: unknown): TreeDump | undefined {
  const d = dump as Partial<TreeDump> | null;
  if (!d || d.format !== 'standard-v1' || !Array.isArray(d.tree) || !Array.isArray(d.values)) return undefined;
  if (!Array.isArray(d.leafEncoding) || d.leafEncoding.length !== LEAF_ENCODING.length || d.leafEncoding.some((t, i) => t !== LEAF_ENCODING[i])) return undefined;
  return d as TreeDump;
}

/**
 * The leaf hashes a stored dump holds (each value's node of the tree), by path and commitment;
 * empty for a dump of another format or encoding.
 */
function storedLeafHashes(dump: unknown): Map<string, string> {
  const hashes = new Map<string, string>();
  const d = identityDump(dump);
  if (!d) return hashes;
  for (const v of d.values as Array<{ value?: unknown; treeIndex?: unknown }>) {
    const hash = typeof v?.treeIndex === 'number' ? d.tree[v.treeIndex] : undefined;
    if (!Array.isArray(v?.value) || typeof v.value[0] !== 'string' || typeof v.value[1] !== 'string' || typeof hash !== 'string') continue;
    hashes.set(leafKey(v.value[0], v.value[1]), hash);
  }
  return hashes;
}

/**
 * The OpenZeppelin StandardMerkleTree of the entries: its root and its dump (stored, so a proof
 * needs no rebuild), the same as `StandardMerkleTree.of(entries, LEAF_ENCODING)` gives. The
 * leaves already hashed in `previousDump` (the user's latest stored version, which its proofs
 * are served from) are taken from it; only a changed field's leaf is hashed.
 */
export function identityTree(entries: IdentityEntry[], previousDump?: unknown): { root: string; dump: unknown } {
  const known = storedLeafHashes(previousDump);
  const tree = IdentityMerkleTree.build(
    entries.map((e) => [e.path, e.commitment]),
    ([path, c]) => known.get(leafKey(path, c)) ?? leafHash(path, c),
  );
  return { root: tree.root, dump: tree.dump() };
}

/**
 * A StandardMerkleTree built by the library's own steps (those of `StandardMerkleTree.of`: the
 * leaves hashed, sorted, paired), with the leaf hash given rather than the library's.
 * test/unit/identity-tree.test.ts compares its dumps with `of`'s.
 */
class IdentityMerkleTree extends StandardMerkleTree<[string, string]> {
  static build(values: Array<[string, string]>, hash: (value: [string, string]) => string): IdentityMerkleTree {
    const [tree, indexed] = StandardMerkleTree.prepare(values, {}, hash);
    return new IdentityMerkleTree(tree, indexed, [...LEAF_ENCODING]);
  }

  /** A stored dump as a tree, without `load`'s validation of every leaf (see identityProof). */
  static stored(dump: TreeDump): IdentityMerkleTree {
    return new IdentityMerkleTree(dump.tree, dump.values, [...LEAF_ENCODING]);
  }
}

/**
 * The leaf hash and the MerkleProof of one entry in a stored tree dump. The library checks what
 * the answer rests on: that the tree holds this entry's leaf where the dump says (the leaf hashed
 * again) and that the proof reaches the tree's root. The other leaves are not hashed again:
 * `StandardMerkleTree.load` validated the whole dump, every leaf through abi-utils, for each first
 * proof of a version and path.
 */
export function identityProof(dump: unknown, entry: Pick<IdentityEntry, 'path' | 'commitment'>): { leaf: string; proof: string[] } {
  const d = identityDump(dump);
  if (!d) throw new Error('not a stored identity tree');
  const index = d.values.findIndex((v) => Array.isArray(v?.value) && v.value[0] === entry.path && v.value[1] === entry.commitment);
  if (index < 0) throw new Error('Leaf is not in tree');
  const proof = IdentityMerkleTree.stored(d).getProof(index);
  return { leaf: d.tree[d.values[index]!.treeIndex]!, proof };
}
