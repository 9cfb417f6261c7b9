import { randomBytes } from 'node:crypto';
import { StandardMerkleTree } from '@openzeppelin/merkle-tree';
import { encodeAbiParameters, keccak256, type Hex } from 'viem';
import type { Clock } from '../../platform/clock.js';
import type { DbOrTx } from '../../platform/db/client.js';
import type { RunInTx } from '../../platform/db/tx.js';
import { IdentityErrors } from './errors.js';
import type { IdentityRepo } from './repo.js';
import type { IdentityProofDto, IdentityRootDto } from './schemas.js';
import type { IdentityEntry, IdentityRootRow } from './table.js';

/** The tree's leaf encoding: [path, keccak256(abi.encode(bytes32 salt, string value))]. */
export const LEAF_ENCODING = ['string', 'bytes32'] as const;
const HISTORY_LIMIT = 100;

/** A module's identity fields of a user: path -> value (null or absent: no leaf). */
export type IdentitySource = (tenantId: string, userId: string, db: DbOrTx) => Promise<Record<string, string | null | undefined>>;

/** The salted commitment to one value; the leaf of the tree carries it beside the path. */
export function commitment(salt: string, value: string): string {
  return keccak256(encodeAbiParameters([{ type: 'bytes32' }, { type: 'string' }], [salt as Hex, value]));
}

function sameEntries(a: IdentityEntry[], b: IdentityEntry[]): boolean {
  return a.length === b.length && a.every((e, i) => e.path === b[i]!.path && e.commitment === b[i]!.commitment);
}

/**
 * The identity root of a user: each identity field (kyc.status, kyc.country, wallet
 * addresses, ...) is a leaf [path, keccak256(salt, value)] of an OpenZeppelin
 * StandardMerkleTree, so a contract verifies a disclosed field with MerkleProof. A new
 * version is stored whenever a field changes; earlier versions stay listed.
 */
export function createIdentityService(deps: {
  /** The database, for the reads of current() outside a transaction. */
  db: DbOrTx;
  repo: IdentityRepo;
  tx: RunInTx;
  clock: Clock;
  sources: IdentitySource[];
  userExists: (tenantId: string, userId: string) => Promise<boolean>;
}) {
  const { repo, tx, clock, sources, userExists } = deps;

  /** The user's identity fields now, from every source, without the empty ones. */
  async function fieldsOf(tenantId: string, userId: string, db: DbOrTx): Promise<Record<string, string>> {
    const fields: Record<string, string> = {};
    for (const source of sources) {
      for (const [path, value] of Object.entries(await source(tenantId, userId, db))) {
        if (value !== null && value !== undefined) fields[path] = value;
      }
    }
    return fields;
  }

  /** The leaves of those fields with these salts, in path order; undefined when a field has no salt yet. */
  function entriesOf(fields: Record<string, string>, salts: Map<string, string>): IdentityEntry[] | undefined {
    const entries: IdentityEntry[] = [];
    for (const path of Object.keys(fields).sort()) {
      const salt = salts.get(path);
      if (!salt) return undefined;
      entries.push({ path, value: fields[path]!, salt, commitment: commitment(salt, fields[path]!) });
    }
    return entries;
  }

  /** Recomputes the user's root inside `db`; stores a new version only when a field changed. */
  async function recompute(tenantId: string, userId: string, db: DbOrTx): Promise<IdentityRootRow> {
    await repo.lockUser(tenantId, userId, db);
    const fields = await fieldsOf(tenantId, userId, db);
    const salts = await repo.salts(tenantId, userId, db);
    const fresh = Object.keys(fields)
      .filter((p) => !salts.has(p))
      .map((path) => ({ path, salt: `0x${randomBytes(32).toString('hex')}` }));
    const now = clock.now();
    await repo.insertSalts(tenantId, userId, fresh, now, db);
    for (const f of fresh) salts.set(f.path, f.salt);
    const entries = entriesOf(fields, salts)!;
    const latest = await repo.latest(tenantId, userId, db);
    if (latest && sameEntries(latest.entries, entries)) return latest;
    const tree = StandardMerkleTree.of(
      entries.map((e) => [e.path, e.commitment]),
      [...LEAF_ENCODING],
    );
    return repo.insertRoot(
      tenantId,
      { userId, version: (latest?.version ?? 0) + 1, root: tree.root, entries, tree: tree.dump(), createdAt: now },
      db,
    );
  }

  /**
   * The user's root as of now. Most reads find nothing changed: the latest stored version is
   * compared with the fields read outside any transaction (salts are never changed, so equal
   * entries mean that version is current), and only a difference takes the lock and the
   * transaction of recompute. Reads that race a change see either version, as reads a moment
   * apart would.
   */
  async function current(tenantId: string, userId: string): Promise<IdentityRootRow> {
    if (!(await userExists(tenantId, userId))) throw IdentityErrors.userNotFound();
    const [latest, fields, salts] = await Promise.all([
      repo.latest(tenantId, userId),
      fieldsOf(tenantId, userId, deps.db),
      repo.salts(tenantId, userId),
    ]);
    const entries = latest ? entriesOf(fields, salts) : undefined;
    if (latest && entries && sameEntries(latest.entries, entries)) return latest;
    return tx((db) => recompute(tenantId, userId, db));
  }

  return {
    recompute,

    async root(tenantId: string, userId: string): Promise<IdentityRootDto> {
      const row = await current(tenantId, userId);
      const history = await repo.history(tenantId, userId, HISTORY_LIMIT);
      return {
        root: row.root,
        version: row.version,
        leafEncoding: [...LEAF_ENCODING],
        computedAt: row.createdAt.toISOString(),
        paths: row.entries.map((e) => e.path),
        history: history.map((h) => ({ version: h.version, root: h.root, computedAt: h.createdAt.toISOString() })),
      };
    },

    async proof(tenantId: string, userId: string, path: string): Promise<IdentityProofDto> {
      const row = await current(tenantId, userId);
      const entry = row.entries.find((e) => e.path === path);
      if (!entry) throw IdentityErrors.pathNotFound(path);
      const tree = StandardMerkleTree.load(row.tree as Parameters<typeof StandardMerkleTree.load<[string, string]>>[0]);
      const leafValue: [string, string] = [entry.path, entry.commitment];
      return {
        root: row.root,
        version: row.version,
        path: entry.path,
        value: entry.value,
        salt: entry.salt,
        commitment: entry.commitment,
        leafEncoding: [...LEAF_ENCODING],
        leaf: tree.leafHash(leafValue),
        proof: tree.getProof(leafValue),
      };
    },
  };
}

export type IdentityService = ReturnType<typeof createIdentityService>;
