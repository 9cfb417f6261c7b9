import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TEST_MASTER_KEY } from '../helpers/harness.js';
import { cliJson } from '../helpers/cli.js';

describe('operator CLI: event-endpoint add / list / remove, events replay', () => {
  it('adds an endpoint (secret printed once), lists it, replays a range, removes it; refuses bad input', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'bastion-events-cli-'));
    const env = { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, MASTER_KEY: TEST_MASTER_KEY, LOG_LEVEL: 'silent', ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}) };
    const cli = cliJson(env);
    const { tenantId } = await cli('tenant', 'create', '--name', `events-cli-${crypto.randomUUID()}`);

    const added = await cli('event-endpoint', 'add', '--tenant', tenantId, '--url', 'https://93.184.215.14/hooks', '--types', 'user.created,kyc.approved');
    expect(added).toMatchObject({ tenantId, url: 'https://93.184.215.14/hooks', types: ['user.created', 'kyc.approved'], enabled: true, secret: expect.stringMatching(/^whsec_/) });
    const listed = await cli('event-endpoint', 'list', '--tenant', tenantId);
    expect(listed).toMatchObject({ tenantId, total: 1, data: [{ id: added.id }] });
    expect(JSON.stringify(listed)).not.toContain(added.secret);

    const replayed = await cli('events', 'replay', '--tenant', tenantId, '--endpoint', added.id, '--from', '2020-01-01T00:00:00Z');
    expect(replayed).toEqual({ tenantId, endpointId: added.id, queued: 0 });

    await expect(cli('event-endpoint', 'add', '--tenant', tenantId, '--url', 'https://127.0.0.1/x')).rejects.toThrow(/EVENT_ENDPOINT_URL_PRIVATE_ADDRESS/);

    expect(await cli('event-endpoint', 'remove', '--tenant', tenantId, '--id', added.id)).toEqual({ tenantId, id: added.id, removed: true });
    await expect(cli('event-endpoint', 'remove', '--tenant', tenantId, '--id', added.id)).rejects.toThrow(/EVENT_ENDPOINT_NOT_FOUND/);
  }, 600_000);
});
