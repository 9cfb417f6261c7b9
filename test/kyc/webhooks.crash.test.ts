import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { inboundWebhooks } from '../../src/platform/providers/table.js';
import { signBody } from '../../src/providers/idv/signature.js';
import { nodeArgsFor } from '../../scripts/built.mjs';
import { createHarness, TEST_MASTER_KEY, usingPostgres, type Harness } from '../helpers/harness.js';
import { decisionBody, eventBody, idvSecret, sendWebhook, sessionIdOf, startSession } from '../helpers/kyc.js';
import { ownPostgresDatabase, type OwnDatabase } from '../helpers/own-database.js';
import { readKyc, readUser } from '../helpers/read.js';
import { servicePort } from '../helpers/ports.js';

/**
 * A provider's delivery is recorded as applied exactly when its effect commits: the service
 * process (src/main.ts) is killed with SIGKILL right after it claimed a decision webhook's event
 * id (BASTION_CRASH_AT, a test-only hook), and the provider's retry of the same bytes to the
 * restarted service is applied, not answered as a replay. Two processes share one database, so
 * this runs where the suite has PostgreSQL: the service on a database of its own, and this
 * file's harness on the same one (it starts the session and knows the tenant's secret).
 */
describe.skipIf(!usingPostgres)('a webhook cut by a crash after its claim', () => {
  let database: OwnDatabase | undefined;
  let h: Harness | undefined;
  const children: ChildProcess[] = [];
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await h?.close();
    await database?.drop();
  });

  async function startService(dbUrl: string, env: Record<string, string> = {}) {
    const port = servicePort();
    const child = spawn(process.execPath, nodeArgsFor('src/main.ts'), {
      env: {
        PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', DATA_DIR: mkdtempSync(join(tmpdir(), 'bastion-webhook-crash-')), PORT: String(port), HOST: '127.0.0.1',
        DATABASE_URL: dbUrl, MASTER_KEY: TEST_MASTER_KEY, EVM_LOCAL_RPC_PORT: '0', XRPL_LOCAL_PORT: '0',
        ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}), ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let output = '';
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal === 'SIGKILL' ? -9 : -1))));
    const base = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 90_000;
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the service exited before it was ready:\n${output}`);
      if (Date.now() > deadline) throw new Error(`the service did not start:\n${output}`);
      if (await fetch(`${base}/ready`).then((r) => r.status === 200, () => false)) break;
      await new Promise((r) => setTimeout(r, 150));
    }
    return { base, exited, output: () => output };
  }

  it('the retry of a decision whose claim died with the process is applied once', async () => {
    database = await ownPostgresDatabase(process.env.DATABASE_URL!, 'webhook_crash');
    // The first service migrates the database; the harness then works in it beside the service.
    let service = await startService(database.url, { BASTION_CRASH_AT: 'webhook.idv.after-claim' });
    h = await createHarness({ listen: true, env: { DATABASE_URL: database.url } });
    const userId = await h.createUser();
    const { kycId } = await startSession(h, userId);
    const sessionId = await sessionIdOf(h, kycId);
    const tenantId = h.tenant.tenantId;
    expect((await sendWebhook(h, '/kyc/callback/idv-a/event', eventBody(tenantId, kycId, sessionId, 'submitted'))).statusCode).toBe(201);

    const claims = async () =>
      (await h!.container.database.db
        .select({ eventId: inboundWebhooks.eventId })
        .from(inboundWebhooks)
        .where(and(eq(inboundWebhooks.tenantId, tenantId), eq(inboundWebhooks.kind, 'idv'), eq(inboundWebhooks.provider, 'idv-a')))).map((c) => c.eventId);
    const before = await claims();
    expect(before).toHaveLength(1); // the submitted event's

    // The provider's delivery, as bytes and signature: sent to the service, which dies after its claim.
    const raw = JSON.stringify(decisionBody(tenantId, kycId, sessionId, 'approved'));
    const signature = signBody(raw, (await idvSecret(h, tenantId))!);
    const deliver = (base: string) => fetch(`${base}/kyc/callback/idv-a/decision`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-hmac-signature': signature }, body: raw });
    const cut = await deliver(service.base).then((r) => r.status, () => 'no answer');
    expect(cut).toBe('no answer');
    expect(await service.exited).toBe(-9);
    expect(service.output()).not.toMatch(/"level":(50|60)/);
    // Nothing of the delivery stayed: no claim, no decision.
    expect(await claims()).toEqual(before);
    expect((await readKyc(h, kycId)).status).toBe('submitted');

    // The provider retries the same delivery to the restarted service: applied, then a replay.
    service = await startService(database.url);
    const retried = await deliver(service.base);
    expect(retried.status).toBe(201);
    expect(await retried.json()).toEqual({ received: true, applied: true, outcome: 'applied', status: 'approved' });
    const again = await deliver(service.base);
    expect(await again.json()).toEqual({ received: true, applied: false, outcome: 'replay' });
    expect((await readKyc(h, kycId)).status).toBe('approved');
    expect((await readUser(h, userId)).kycStatus).toBe('approved');
    expect(await claims()).toHaveLength(2);
  }, 240_000);
});
