import { StandardMerkleTree } from '@openzeppelin/merkle-tree';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { decideInSandbox, http } from '../helpers/kyc.js';
import { ozCommitment, ozLeaf, ozVerify } from '../helpers/merkle.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ listen: true });
});
afterAll(async () => h.close());

describe('KYC end to end over real HTTP, against the idv-a sandbox', () => {
  it('session -> sandbox page -> approve -> signed webhooks -> attempts approved -> identity root and proof', async () => {
    const userId = await h.createUser();
    const headers = h.bearerHeaders(await h.tokenFor(userId));

    // 1. The app starts a session; Bastion calls the sandbox provider over HTTP.
    const created = await http(h, 'POST', '/kyc/idv-a/session', headers, { firstName: 'Ada', lastName: 'Lovelace' });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ kycId: expect.any(String), status: 'created', provider: 'idv-a' });
    expect(created.json.sessionUrl).toMatch(new RegExp(`^${h.baseUrl}/sandbox/idv-a/s/`));

    // 2. The person opens the page (the sandbox sends the signed "started" event) and approves.
    const done = await decideInSandbox(created.json.sessionUrl, { decision: 'approved', country: 'fr', documentType: 'PASSPORT' });
    expect(done.status).toBe(200);
    expect(done.html).toContain('approved');
    expect(done.html).toMatch(/callback\/idv-a\/event: HTTP 201/);
    expect(done.html).toMatch(/callback\/idv-a\/decision: HTTP 201/);

    // 3. The client polls its attempts until approved.
    const attempts = await http(h, 'GET', '/kyc/attempts', headers);
    expect(attempts.status).toBe(200);
    expect(attempts.json.total).toBe(1);
    expect(attempts.json.data[0]).toMatchObject({ kycId: created.json.kycId, status: 'approved', country: 'FR', documentType: 'PASSPORT' });

    const current = await http(h, 'GET', `/kyc/current/${created.json.kycId}`, headers);
    expect(current.json.history.map((e: { from: string | null; to: string; actor: { type: string } }) => [e.from, e.to, e.actor.type])).toEqual([
      [null, 'created', 'user'],
      ['created', 'started', 'provider'],
      ['started', 'submitted', 'provider'],
      ['submitted', 'approved', 'provider'],
    ]);
    const me = await http(h, 'GET', '/users/me', headers);
    expect(me.json.kycStatus).toBe('approved');

    // 4. The identity root includes the KYC fields, and each proof verifies two ways.
    const root = await http(h, 'GET', '/kyc/identity/root', headers);
    expect(root.status).toBe(200);
    expect(root.json.leafEncoding).toEqual(['string', 'bytes32']);
    expect(root.json.paths).toEqual(expect.arrayContaining(['kyc.status', 'kyc.country', 'kyc.level', 'user.id']));
    for (const path of ['kyc.status', 'kyc.country', 'kyc.level']) {
      const res = await http(h, 'GET', `/kyc/identity/proof?path=${path}`, headers);
      expect(res.status).toBe(200);
      const p = res.json;
      expect(p.root).toBe(root.json.root);
      expect(p.commitment).toBe(ozCommitment(p.salt, p.value));
      expect(StandardMerkleTree.verify(root.json.root, ['string', 'bytes32'], [p.path, p.commitment], p.proof)).toBe(true);
      expect(p.leaf).toBe(ozLeaf(p.path, p.commitment));
      expect(ozVerify(root.json.root, ozLeaf(p.path, p.commitment), p.proof)).toBe(true);
    }
    const status = await http(h, 'GET', '/kyc/identity/proof?path=kyc.status', headers);
    expect(status.json.value).toBe('approved');
    // A changed value does not verify.
    const forged = ozCommitment(status.json.salt, 'declined');
    expect(ozVerify(root.json.root, ozLeaf('kyc.status', forged), status.json.proof)).toBe(false);
    expect(StandardMerkleTree.verify(root.json.root, ['string', 'bytes32'], ['kyc.status', forged], status.json.proof)).toBe(false);
  });
});
