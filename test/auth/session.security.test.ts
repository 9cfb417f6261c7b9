import { refreshTokens } from '../../src/modules/auth/table.js';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from '../helpers/harness.js';
import { sessionFixture } from './session.fixture.js';
import { expectError } from '../helpers/security.js';
import { auditEvents } from '../helpers/read.js';

const fx = sessionFixture();
const { refresh, start, me } = fx;
let h: Harness;
let userId: string;
beforeAll(() => ({ h, userId } = fx.env));

describe('POST /auth/refresh', () => {
  it('a reuse after the window revokes the whole family, and the event is recorded', async () => {
    const first = await start();
    const next = (await refresh(first.refreshToken)).json();
    h.clock.advance(10_001);
    expectError(await refresh(first.refreshToken), 401, 'REFRESH_TOKEN_INVALID');
    // The legitimate successor and its access token die with the family.
    expectError(await refresh(next.refreshToken), 401, 'REFRESH_TOKEN_INVALID');
    expectError(await me(next.accessToken), 401, 'TOKEN_INVALID');
    const events = await auditEvents(h, { type: 'refresh.reused', userId });
    expect(events.data[0]).toMatchObject({ type: 'refresh.reused', subjectUserId: userId, details: { sessionRevoked: true } });
  });

  it('is 401 with another tenant, unknown tokens, and after logout', async () => {
    const other = await h.newTenant();
    const first = await start();
    expectError(await refresh(first.refreshToken, other.tenantId), 401, 'REFRESH_TOKEN_INVALID');
    expectError(await refresh('A'.repeat(43)), 401, 'REFRESH_TOKEN_INVALID');
    await h.inject({ method: 'POST', url: '/auth/logout', headers: h.bearerHeaders(first.accessToken) });
    expectError(await refresh(first.refreshToken), 401, 'REFRESH_TOKEN_INVALID');
  });

  it('stores refresh tokens only as hashes', async () => {
    const pair = await start();
    const rows = await h.database.db.select().from(refreshTokens);
    expect(JSON.stringify(rows)).not.toContain(pair.refreshToken);
  });
});
