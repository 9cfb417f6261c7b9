import { beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from '../helpers/harness.js';
import { sessionFixture } from './session.fixture.js';
import { expectError } from '../helpers/security.js';

const fx = sessionFixture();
const { refresh, start, counts } = fx;
let h: Harness;
beforeAll(() => ({ h } = fx.env));

describe('POST /auth/refresh', () => {
  it('expires after 7 days (injected clock)', async () => {
    const first = await start();
    h.clock.advance(7 * 24 * 3600_000 + 1000);
    expectError(await refresh(first.refreshToken), 401, 'REFRESH_TOKEN_INVALID');
  });

  it('400 on a malformed body, 401 without a tenant', async () => {
    expectError(await h.inject({ method: 'POST', url: '/auth/refresh', headers: { 'x-tenant-id': h.tenant.tenantId }, payload: {} }), 400, 'VALIDATION_FAILED');
    expectError(await h.inject({ method: 'POST', url: '/auth/refresh', payload: { refreshToken: 'x' } }), 401, 'TENANT_REQUIRED');
  });
});

describe('a session and its audit event are one statement', () => {
  it('when one write fails, none is kept: no session without its event', async () => {
    const t = await h.newTenant();
    const userId = await h.createUser(t, 'atomic@example.com');
    // The same audit row twice: the second insert of the statement breaks the primary key.
    const statement = h.container.audit.statement(t.tenantId, { type: 'token.minted', actorType: 'system', subjectUserId: userId });
    await expect(h.container.sessions.start(t.tenantId, userId, 'user', {}, { alsoWrite: [statement, statement] })).rejects.toThrow();
    expect(await counts(t.tenantId, userId)).toEqual({ sessions: 0, audit: 0 });
    await h.container.sessions.start(t.tenantId, userId, 'user', {}, { alsoWrite: [statement] });
    expect(await counts(t.tenantId, userId)).toEqual({ sessions: 1, audit: 1 });
  });
});
