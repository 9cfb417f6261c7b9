import { randomBytes } from 'node:crypto';
import type { Clock } from '../../platform/clock.js';
import type { DbOrTx } from '../../platform/db/client.js';
import type { RunInTx } from '../../platform/db/tx.js';
import { IdentityErrors } from './errors.js';
import type { IdentityRepo } from './repo.js';
import type { IdentityProofDto, IdentityRootDto } from './schemas.js';
import type { IdentityRootRow } from './table.js';
import { identityEntries, identityProof, identityTree, LEAF_ENCODING, sameEntries } from './tree.js';

const HISTORY_LIMIT = 100;

/** A module's identity fields of a user: path -> value (null or absent: no leaf). */
export type IdentitySource = (tenantId: string, userId: string, db: DbOrTx) => Promise<Record<string, string | null | undefined>>;

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
    const entries = identityEntries(fields, salts)!;
    const latest = await repo.latest(tenantId, userId, db);
    if (latest && sameEntries(latest.entries, entries)) return latest;
    const tree = identityTree(entries);
    return repo.insertRoot(
      tenantId,
      { userId, version: (latest?.version ?? 0) + 1, root: tree.root, entries, tree: tree.dump, createdAt: now },
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
    const entries = latest ? identityEntries(fields, salts) : undefined;
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
      const { leaf, proof } = identityProof(row.tree, entry);
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
    },
  };
}

export type IdentityService = ReturnType<typeof createIdentityService>;
