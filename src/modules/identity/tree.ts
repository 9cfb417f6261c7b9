import { StandardMerkleTree } from '@openzeppelin/merkle-tree';
import { encodeAbiParameters, keccak256, type Hex } from 'viem';
import type { IdentityEntry } from './table.js';

/** The tree's leaf encoding: [path, keccak256(abi.encode(bytes32 salt, string value))]. */
export const LEAF_ENCODING = ['string', 'bytes32'] as const;

/** The salted commitment to one value; the leaf of the tree carries it beside the path. */
export function commitment(salt: string, value: string): string {
  return keccak256(encodeAbiParameters([{ type: 'bytes32' }, { type: 'string' }], [salt as Hex, value]));
}

/** The leaves of `fields` with these salts, in path order; undefined when a field has no salt yet. */
export function identityEntries(fields: Record<string, string>, salts: ReadonlyMap<string, string>): IdentityEntry[] | undefined {
  const entries: IdentityEntry[] = [];
  for (const path of Object.keys(fields).sort()) {
    const salt = salts.get(path);
    if (!salt) return undefined;
    entries.push({ path, value: fields[path]!, salt, commitment: commitment(salt, fields[path]!) });
  }
  return entries;
}

/** Same leaves in the same order (a stored version still current). */
export function sameEntries(a: IdentityEntry[], b: IdentityEntry[]): boolean {
  return a.length === b.length && a.every((e, i) => e.path === b[i]!.path && e.commitment === b[i]!.commitment);
}

/** The OpenZeppelin StandardMerkleTree of the entries: its root and its dump (stored, so a proof needs no rebuild). */
export function identityTree(entries: IdentityEntry[]): { root: string; dump: unknown } {
  const tree = StandardMerkleTree.of(
    entries.map((e) => [e.path, e.commitment]),
    [...LEAF_ENCODING],
  );
  return { root: tree.root, dump: tree.dump() };
}

/** The leaf hash and the MerkleProof of one entry in a stored tree dump. */
export function identityProof(dump: unknown, entry: Pick<IdentityEntry, 'path' | 'commitment'>): { leaf: string; proof: string[] } {
  const tree = StandardMerkleTree.load(dump as Parameters<typeof StandardMerkleTree.load<[string, string]>>[0]);
  const leafValue: [string, string] = [entry.path, entry.commitment];
  return { leaf: tree.leafHash(leafValue), proof: tree.getProof(leafValue) };
}
