import { concat, encodeAbiParameters, keccak256, type Hex } from 'viem';

/**
 * OpenZeppelin MerkleProof.verify, recomputed independently of @openzeppelin/merkle-tree:
 * leaf = keccak256(keccak256(abi.encode(string path, bytes32 commitment))), then for each
 * proof element keccak256 of the sorted pair.
 */
export function ozLeaf(path: string, commitment: string): Hex {
  return keccak256(keccak256(encodeAbiParameters([{ type: 'string' }, { type: 'bytes32' }], [path, commitment as Hex])));
}

function hashPair(a: Hex, b: Hex): Hex {
  return BigInt(a) < BigInt(b) ? keccak256(concat([a, b])) : keccak256(concat([b, a]));
}

export function ozVerify(root: string, leaf: Hex, proof: string[]): boolean {
  let computed = leaf;
  for (const sibling of proof) computed = hashPair(computed, sibling as Hex);
  return computed.toLowerCase() === root.toLowerCase();
}

/** keccak256(abi.encode(bytes32 salt, string value)): the committed value of a field. */
export function ozCommitment(salt: string, value: string): Hex {
  return keccak256(encodeAbiParameters([{ type: 'bytes32' }, { type: 'string' }], [salt as Hex, value]));
}
