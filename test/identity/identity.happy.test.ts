import { StandardMerkleTree } from '@openzeppelin/merkle-tree';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { ozCommitment, ozLeaf, ozVerify } from '../helpers/merkle.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

const ENC = ['string', 'bytes32'];

async function getRoot(headers: Record<string, string>, userId?: string) {
  const { data, response } = await h.api(headers).GET('/kyc/identity/root', { params: { query: userId ? { userId } : {} } });
  expect(response.status).toBe(200);
  return data!;
}

async function getProof(path: string, headers: Record<string, string>, userId?: string) {
  const { data, response } = await h.api(headers).GET('/kyc/identity/proof', { params: { query: userId ? { path, userId } : { path } } });
  expect(response.status).toBe(200);
  return data!;
}

/** Verifies a proof both with the library and by recomputing OpenZeppelin MerkleProof. */
function verifiesBothWays(root: string, p: { path: string; value: string; salt: string; commitment: string; leaf: string; proof: string[] }): boolean {
  const commitment = ozCommitment(p.salt, p.value);
  const byLibrary = StandardMerkleTree.verify(root, ENC, [p.path, commitment], p.proof);
  const byHand = ozVerify(root, ozLeaf(p.path, commitment), p.proof);
  expect(byLibrary).toBe(byHand);
  return byLibrary && byHand && p.leaf === ozLeaf(p.path, commitment);
}

describe('GET /kyc/identity/root and /proof', () => {
  it('a new user has a root over user.id; its proof verifies', async () => {
    const userId = await h.createUser();
    const headers = h.bearerHeaders(await h.tokenFor(userId));
    const root = await getRoot(headers);
    expect(root).toMatchObject({ version: 1, leafEncoding: ENC, paths: ['user.id'], computedAt: h.clock.now().toISOString() });
    expect(root.root).toMatch(/^0x[0-9a-f]{64}$/);
    expect(root.history).toEqual([{ version: 1, root: root.root, computedAt: root.computedAt }]);
    const proof = await getProof('user.id', headers);
    expect(proof).toMatchObject({ root: root.root, version: 1, path: 'user.id', value: userId, leafEncoding: ENC });
    expect(proof.salt).toMatch(/^0x[0-9a-f]{64}$/);
    expect(verifiesBothWays(root.root, proof)).toBe(true);
  });

  it('reading twice without a change keeps the version', async () => {
    const headers = h.bearerHeaders(await h.tokenFor(await h.createUser()));
    const a = await getRoot(headers);
    const b = await getRoot(headers);
    expect(b.version).toBe(a.version);
    expect(b.root).toBe(a.root);
    expect(b.history).toHaveLength(1);
  });

  it('wallet addresses become leaves; the root changes and the earlier root stays listed with its time', async () => {
    const userId = await h.createUser();
    const headers = h.bearerHeaders(await h.tokenFor(userId));
    const first = await getRoot(headers);
    const firstProof = await getProof('user.id', headers);
    h.clock.advance(60_000);
    await h.container.users.setFields(h.tenant.tenantId, userId, {
      evmEoa: '0x52908400098527886e0f7030069857d2e4169ee7',
      xrplAddress: 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh',
    });
    const second = await getRoot(headers);
    expect(second.version).toBe(2);
    expect(second.root).not.toBe(first.root);
    expect(second.paths).toEqual(['user.id', 'wallet.evmEoa', 'wallet.xrplAddress']);
    expect(second.history).toEqual([
      { version: 2, root: second.root, computedAt: h.clock.now().toISOString() },
      { version: 1, root: first.root, computedAt: first.computedAt },
    ]);
    for (const path of second.paths) {
      const proof = await getProof(path, headers);
      expect(proof.root).toBe(second.root);
      expect(verifiesBothWays(second.root, proof)).toBe(true);
    }
    expect((await getProof('wallet.xrplAddress', headers)).value).toBe('rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh');
    // The proof taken against the earlier root still verifies against it (and not against the new one).
    expect(verifiesBothWays(first.root, firstProof)).toBe(true);
    expect(StandardMerkleTree.verify(second.root, ENC, [firstProof.path, firstProof.commitment], firstProof.proof)).toBe(false);
  });

  it('a changed value under an existing path (same salt) is a new version at the next read', async () => {
    const userId = await h.createUser();
    const headers = h.bearerHeaders(await h.tokenFor(userId));
    await h.container.users.setFields(h.tenant.tenantId, userId, { evmEoa: '0x52908400098527886e0f7030069857d2e4169ee7' });
    const before = await getRoot(headers);
    expect((await getRoot(headers)).version).toBe(before.version);
    await h.container.users.setFields(h.tenant.tenantId, userId, { evmEoa: '0x8ba1f109551bd432803012645ac136ddd64dba72' });
    const after = await getRoot(headers);
    expect(after.version).toBe(before.version + 1);
    expect(after.root).not.toBe(before.root);
    const proof = await getProof('wallet.evmEoa', headers);
    expect(proof.value).toBe('0x8ba1f109551bd432803012645ac136ddd64dba72');
    expect(verifiesBothWays(after.root, proof)).toBe(true);
  });

  it('a KYC decision recomputes the root in its own transaction, at the time of the change', async () => {
    const userId = await h.createUser();
    const api = h.api(h.keyHeaders());
    const created = await api.POST('/kyc/kyc', { body: { userId, provider: 'manual', country: 'ch', level: 'enhanced' } });
    const kycId = created.data!.kycId;
    h.clock.advance(1000);
    expect((await api.PUT('/kyc/approve/{kycId}', { params: { path: { kycId } } })).response.status).toBe(200);
    const approvedAt = h.clock.now().toISOString();
    h.clock.advance(3_600_000);
    // A token from now: access tokens live 15 minutes.
    const headers = h.bearerHeaders(await h.tokenFor(userId));
    const root = await getRoot(headers);
    expect(root.computedAt).toBe(approvedAt);
    expect(root.paths).toEqual(['kyc.approvedAt', 'kyc.country', 'kyc.level', 'kyc.provider', 'kyc.status', 'user.id']);
    const values = Object.fromEntries(
      await Promise.all(root.paths.map(async (path: string) => [path, (await getProof(path, headers)).value])),
    );
    expect(values).toMatchObject({ 'kyc.status': 'approved', 'kyc.country': 'CH', 'kyc.level': 'enhanced', 'kyc.provider': 'manual', 'kyc.approvedAt': approvedAt });
    expect(root.history.map((v: { version: number }) => v.version)).toEqual([2, 1]);
  });

  it("a proof does not verify against another user's root, nor with a changed value or salt", async () => {
    const a = await h.createUser();
    const b = await h.createUser();
    const ha = h.bearerHeaders(await h.tokenFor(a));
    const hb = h.bearerHeaders(await h.tokenFor(b));
    for (const [id, headers] of [[a, ha], [b, hb]] as const) {
      await h.container.users.setFields(h.tenant.tenantId, id, { evmEoa: '0x52908400098527886e0f7030069857d2e4169ee7' });
      await getRoot(headers);
    }
    const rootB = (await getRoot(hb)).root;
    const proofA = await getProof('wallet.evmEoa', ha);
    const proofB = await getProof('wallet.evmEoa', hb);
    // Same value, different salts: the commitments reveal nothing and differ.
    expect(proofA.value).toBe(proofB.value);
    expect(proofA.commitment).not.toBe(proofB.commitment);
    expect(verifiesBothWays(rootB, proofA)).toBe(false);
    expect(verifiesBothWays(proofA.root, proofA)).toBe(true);
    expect(verifiesBothWays(proofA.root, { ...proofA, value: '0x0000000000000000000000000000000000000001' })).toBe(false);
    expect(verifiesBothWays(proofA.root, { ...proofA, salt: proofB.salt })).toBe(false);
  });

  it('an API key or an admin reads a named user; the user reads their own', async () => {
    const userId = await h.createUser();
    const own = await getRoot(h.bearerHeaders(await h.tokenFor(userId)));
    const byKey = await getRoot(h.keyHeaders(), userId);
    const admin = await h.createUser(undefined, undefined, 'admin');
    const byAdmin = await getRoot(h.bearerHeaders(await h.tokenFor(admin)), userId);
    expect(byKey.root).toBe(own.root);
    expect(byAdmin.root).toBe(own.root);
    const proof = await getProof('user.id', h.keyHeaders(), userId);
    expect(proof.value).toBe(userId);
    const selfNamed = await getRoot(h.bearerHeaders(await h.tokenFor(userId)), userId);
    expect(selfNamed.root).toBe(own.root);
  });
});

describe('stored trees and proofs', () => {
  it('a changed source field is a new tree and new proofs; an unchanged one is served without a rebuild', async () => {
    const userId = await h.createUser();
    const headers = h.bearerHeaders(await h.tokenFor(userId));
    await h.container.users.setFields(h.tenant.tenantId, userId, { evmEoa: '0x52908400098527886e0f7030069857d2e4169ee7' });
    const first = await getProof('wallet.evmEoa', headers);
    const idProof = await getProof('user.id', headers);
    const before = h.container.identity.builds();
    // Unchanged: the same answer, byte for byte, without building a tree or a proof.
    for (let i = 0; i < 3; i++) {
      expect(await getProof('wallet.evmEoa', headers)).toEqual(first);
      expect(await getProof('user.id', headers)).toEqual(idProof);
      await getRoot(headers);
    }
    expect(h.container.identity.builds()).toEqual(before);
    // A source changes (announced in its transaction): one new tree, then one proof per path asked.
    await h.container.users.setFields(h.tenant.tenantId, userId, { evmEoa: '0x8ba1f109551bd432803012645ac136ddd64dba72' });
    expect(h.container.identity.builds().trees).toBe(before.trees + 1);
    const second = await getProof('wallet.evmEoa', headers);
    expect(second.version).toBe(first.version + 1);
    expect(second.root).not.toBe(first.root);
    expect(second.value).toBe('0x8ba1f109551bd432803012645ac136ddd64dba72');
    expect(second.salt).toBe(first.salt);
    expect(second.commitment).not.toBe(first.commitment);
    expect(verifiesBothWays(second.root, second)).toBe(true);
    expect(await getProof('wallet.evmEoa', headers)).toEqual(second);
    expect(h.container.identity.builds()).toEqual({ trees: before.trees + 1, proofs: before.proofs + 1 });
  });

  it('a wallet registered in a transaction announces the change there: the root is recomputed with it', async () => {
    const userId = await h.createUser();
    const headers = h.bearerHeaders(await h.tokenFor(userId));
    const first = await getRoot(headers);
    h.clock.advance(1000);
    await h.container.platform.tx((db) => h.container.users.writeForUser(h.tenant.tenantId, userId, db, [], { field: 'xrplAddress', address: 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh' }));
    const linkedAt = h.clock.now().toISOString();
    h.clock.advance(1000);
    const second = await getRoot(headers);
    expect(second).toMatchObject({ version: first.version + 1, computedAt: linkedAt, paths: ['user.id', 'wallet.xrplAddress'] });
  });

  it('a new version reuses nothing of one not known current: its commitments and leaves are computed again', async () => {
    const db = h.container.database.db;
    const userId = await h.createUser();
    const headers = h.bearerHeaders(await h.tokenFor(userId));
    const first = await getProof('user.id', headers);
    // Version 1, unverified, with a commitment that is not its salt's and value's: had the
    // next version taken it, the proof of user.id would not check against its own fields.
    const wrong = `0x${'ee'.repeat(32)}`;
    await db.execute(
      sql`update identity_roots set sources_verified = false, entries = jsonb_set(entries, '{0,commitment}', to_jsonb(${wrong}::text)) where tenant_id = ${h.tenant.tenantId}::uuid and user_id = ${userId}::uuid`,
    );
    await h.container.platform.tx((db) => h.container.users.writeForUser(h.tenant.tenantId, userId, db, [], { field: 'xrplAddress', address: 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh' }));
    const second = await getProof('user.id', headers);
    expect(second.version).toBe(first.version + 1);
    expect(second.commitment).toBe(ozCommitment(second.salt, userId));
    expect(second.commitment).toBe(first.commitment);
    expect(verifiesBothWays(second.root, second)).toBe(true);
  });

  it('a version stored before the sources announced their changes is compared with them once, at its next read', async () => {
    const db = h.container.database.db;
    const stale = await h.createUser();
    const current = await h.createUser();
    for (const userId of [stale, current]) await getRoot(h.bearerHeaders(await h.tokenFor(userId)));
    // As before migration 0033: unverified versions, and a wallet address written without an announcement.
    await db.execute(sql`update identity_roots set sources_verified = false where tenant_id = ${h.tenant.tenantId}::uuid and user_id in (${stale}::uuid, ${current}::uuid)`);
    await db.execute(sql`update users set xrpl_address = 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh' where tenant_id = ${h.tenant.tenantId}::uuid and id = ${stale}::uuid`);
    const staleHeaders = h.bearerHeaders(await h.tokenFor(stale));
    const proof = await getProof('wallet.xrplAddress', staleHeaders);
    expect(proof).toMatchObject({ version: 2, value: 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh' });
    expect(verifiesBothWays(proof.root, proof)).toBe(true);
    const unchanged = await getRoot(h.bearerHeaders(await h.tokenFor(current)));
    expect(unchanged.version).toBe(1);
    const flags = await db.execute(
      sql`select user_id, version, sources_verified from identity_roots where tenant_id = ${h.tenant.tenantId}::uuid and user_id in (${stale}::uuid, ${current}::uuid) order by user_id, version`,
    );
    const rows = (flags as unknown as { rows: Array<{ user_id: string; version: number; sources_verified: boolean }> }).rows;
    expect(rows.filter((r) => r.user_id === current)).toEqual([{ user_id: current, version: 1, sources_verified: true }]);
    expect(rows.filter((r) => r.user_id === stale).map((r) => [r.version, r.sources_verified])).toEqual([
      [1, false],
      [2, true],
    ]);
  });
});
