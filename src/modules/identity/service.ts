import { randomBytes } from 'node:crypto';
import type { Clock } from '../../platform/clock.js';
import type { DbOrTx } from '../../platform/db/client.js';
import type { RunInTx } from '../../platform/db/tx.js';
import { writeTogether } from '../../platform/db/write-together.js';
import { IdentityErrors } from './errors.js';
import type { IdentityRepo, SourceRead } from './repo.js';
import type { IdentityProofDto, IdentityRootDto } from './schemas.js';
import type { IdentityRootRow } from './table.js';
import { identityEntries, identityProof, identityTree, LEAF_ENCODING, sameEntries } from './tree.js';

const HISTORY_LIMIT = 100;
/** Proofs kept per instance (about 1 KiB each). */
const PROOF_CACHE_SIZE = 10_000;

/**
 * A module's identity fields of a user. `read` is a scalar subquery (what the module keeps of the
 * user, as one JSON value): every source's read, the salts and the latest version are one
 * statement. `fields` turns what it answered into path -> value (null or absent: no leaf).
 */
export interface IdentitySource {
  /** Built once, with placeholders for the user's tenant and id (repo.ts, SourceRead). */
  read: SourceRead;
  fields(read: unknown): Record<string, string | null | undefined>;
}

/**
 * The identity root of a user: each identity field (kyc.status, kyc.country, wallet
 * addresses, ...) is a leaf [path, keccak256(salt, value)] of an OpenZeppelin
 * StandardMerkleTree, so a contract verifies a disclosed field with MerkleProof. A new
 * version is stored whenever a field changes (in the transaction of the change, which
 * announces it); earlier versions stay listed.
 */
export function createIdentityService(deps: {
  /** The database, for the reads of current() outside a transaction. */
  db: DbOrTx;
  /** Made with the `read` of each of `sources`, in the same order. */
  repo: IdentityRepo;
  tx: RunInTx;
  clock: Clock;
  sources: IdentitySource[];
  userExists: (tenantId: string, userId: string) => Promise<boolean>;
  /** Proofs kept in memory (default 10,000; 0: none). */
  proofCacheSize?: number;
}) {
  const { repo, tx, clock, sources, userExists } = deps;

  /**
   * The user's identity fields now (from every source, without the empty ones), its salts and
   * its latest version, in one statement.
   */
  async function snapshot(tenantId: string, userId: string, db: DbOrTx) {
    const { reads, salts, latest } = await repo.saltsAndLatest(tenantId, userId, db);
    const fields: Record<string, string> = {};
    sources.forEach((source, i) => {
      for (const [path, value] of Object.entries(source.fields(reads[i] ?? null))) {
        if (value !== null && value !== undefined) fields[path] = value;
      }
    });
    return { fields, salts, latest };
  }

  /** Recomputes the user's root inside `db`; stores a new version only when a field changed. */
  async function recompute(tenantId: string, userId: string, db: DbOrTx): Promise<IdentityRootRow> {
    await repo.lockUser(tenantId, userId, db);
    const { fields, salts, latest } = await snapshot(tenantId, userId, db);
    const fresh = Object.keys(fields)
      .filter((p) => !salts.has(p))
      .map((path) => ({ path, salt: `0x${randomBytes(32).toString('hex')}` }));
    const now = clock.now();
    for (const f of fresh) salts.set(f.path, f.salt);
    // A version known to match the sources (stored by a recompute, or compared with them) lends
    // its commitments and leaf hashes to the fields it holds unchanged; only a changed field is
    // hashed. Versions not yet compared (sourcesVerified false) lend nothing.
    const previous = latest?.sourcesVerified ? latest : undefined;
    const entries = identityEntries(fields, salts, previous?.entries)!;
    if (latest && sameEntries(latest.entries, entries)) {
      // Equal entries use no new salt: a new field would have made them differ.
      if (!latest.sourcesVerified) await repo.markVerified(tenantId, userId, latest.version, db);
      return { ...latest, sourcesVerified: true };
    }
    const tree = identityTree(entries, previous?.tree);
    counts.trees++;
    const root = { userId, version: (latest?.version ?? 0) + 1, root: tree.root, entries, tree: tree.dump, createdAt: now, sourcesVerified: true };
    // The new salts and the new version commit in one statement (under the user's lock, so no
    // other recompute wrote either meanwhile).
    await writeTogether(db, repo.newVersionStatements(tenantId, fresh, root, db));
    return { ...root, tenantId };
  }

  /**
   * A user without a stored version, or whose latest version predates the announcing sources
   * (sourcesVerified false): the sources are read outside any transaction and compared with
   * it (salts never change, so equal entries mean that version is current; it is marked so),
   * and only a difference takes the lock and the transaction of recompute.
   */
  async function verified(tenantId: string, userId: string): Promise<IdentityRootRow> {
    if (!(await userExists(tenantId, userId))) throw IdentityErrors.userNotFound();
    const { fields, salts, latest } = await snapshot(tenantId, userId, deps.db);
    const entries = latest ? identityEntries(fields, salts) : undefined;
    if (latest && entries && sameEntries(latest.entries, entries)) {
      if (!latest.sourcesVerified) await repo.markVerified(tenantId, userId, latest.version);
      return { ...latest, sourcesVerified: true };
    }
    return tx((db) => recompute(tenantId, userId, db));
  }

  /**
   * The user's root as of now. Every source announces its changes (`identity.changed`, in the
   * transaction of the change, which recomputes there), so the latest verified version is
   * current: one read. A stored root belongs to an existing user (foreign key, cascading), so
   * that read also answers whether the user exists. Reads that race a change see either
   * version, as reads a moment apart would.
   */
  async function current(tenantId: string, userId: string): Promise<IdentityRootRow> {
    const latest = await repo.latest(tenantId, userId);
    if (latest?.sourcesVerified) return latest;
    return verified(tenantId, userId);
  }

  /**
   * Proofs already built, by tenant, user, version and path (a stored version never changes,
   * so neither does its proof of a path), least recently used first.
   */
  const proofs = new Map<string, IdentityProofDto>();
  const proofKey = (tenantId: string, userId: string, version: number, path: string) => `${tenantId}/${userId}/${version}/${path}`;
  const proofCacheSize = deps.proofCacheSize ?? PROOF_CACHE_SIZE;

  function cachedProof(key: string): IdentityProofDto | undefined {
    const hit = proofs.get(key);
    if (hit) {
      proofs.delete(key);
      proofs.set(key, hit);
    }
    return hit;
  }

  function keepProof(key: string, proof: IdentityProofDto): void {
    if (proofCacheSize <= 0) return;
    proofs.set(key, proof);
    if (proofs.size > proofCacheSize) proofs.delete(proofs.keys().next().value!);
  }

  function buildProof(row: IdentityRootRow, path: string): IdentityProofDto {
    const entry = row.entries.find((e) => e.path === path);
    if (!entry) throw IdentityErrors.pathNotFound(path);
    const { leaf, proof } = identityProof(row.tree, entry);
    counts.proofs++;
    return {
      root: row.root,
      version: row.version,
      path: entry.path,
      value: entry.value,
      salt: entry.salt,
      commitment: entry.commitment,
      leafEncoding: [...LEAF_ENCODING],
      leaf,
      proof,
    };
  }

  const counts = { trees: 0, proofs: 0 };

  return {
    recompute,

    /** Trees built (new versions stored) and proofs built (not served from the cache) by this instance. */
    builds(): { trees: number; proofs: number } {
      return { ...counts };
    },

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

    /**
     * A proof: one read of the latest version's number when it is verified and its proof of the
     * path was built before; otherwise the stored tree (or a recompute, see current()).
     */
    async proof(tenantId: string, userId: string, path: string): Promise<IdentityProofDto> {
      const head = await repo.latestHead(tenantId, userId);
      if (head?.sourcesVerified) {
        const hit = cachedProof(proofKey(tenantId, userId, head.version, path));
        if (hit) return hit;
      }
      const row = await current(tenantId, userId);
      const proof = buildProof(row, path);
      keepProof(proofKey(tenantId, userId, row.version, path), proof);
      return proof;
    },
  };
}

export type IdentityService = ReturnType<typeof createIdentityService>;
