import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditEventError } from '../../src/modules/audit/errors.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/security.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

describe('GET /audit-events errors', () => {
  it('400 for limit 101, limit 0, a negative offset, malformed cursors and filters', async () => {
    for (const q of ['limit=101', 'limit=0', 'offset=-1', 'beforeId=abc', 'userId=abc', 'type=Not%20A%20Type', 'type=login', 'limit=ten']) {
      const res = await h.inject({ method: 'GET', url: `/audit-events?${q}`, headers: h.keyHeaders() });
      expectError(res, 400, 'VALIDATION_FAILED');
    }
  });

  it('400 naming an unknown filter, including afterId (the list is newest first: use beforeId)', async () => {
    const unknown = await h.inject({ method: 'GET', url: '/audit-events?actorId=x', headers: h.keyHeaders() });
    expectError(unknown, 400, 'VALIDATION_FAILED');
    expect(unknown.json().message).toContain('querystring.actorId is not allowed');
    const after = await h.inject({ method: 'GET', url: `/audit-events?afterId=${randomUUID()}`, headers: h.keyHeaders() });
    expectError(after, 400, 'VALIDATION_FAILED');
    expect(after.json().message).toContain('afterId');
  });

  it('lists every bad field in one message', async () => {
    const res = await h.inject({ method: 'GET', url: '/audit-events?limit=101&userId=nope', headers: h.keyHeaders() });
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.json().message).toMatch(/limit.*;.*userId|userId.*;.*limit/);
  });
});

describe('audit.record refuses malformed events (a bug in the caller)', () => {
  it.each([
    ['an unstructured type', { type: 'LoginSucceeded' as never, actorType: 'user' as const }],
    ['a type without a dot', { type: 'login' as never, actorType: 'user' as const }],
    ['a well-formed type not in the list (src/platform/audit/types.ts)', { type: 'made.up' as never, actorType: 'user' as const }],
    ['an unknown actor type', { type: 'login.succeeded' as const, actorType: 'robot' as never }],
    ['a subject that is not a user id', { type: 'login.succeeded' as const, actorType: 'user' as const, subjectUserId: 'alice' }],
    ['details over 4 KiB', { type: 'login.succeeded' as const, actorType: 'user' as const, details: { blob: 'x'.repeat(5_000) } }],
  ])('%s', async (_name, event) => {
    await expect(h.container.audit.record(undefined, h.tenant.tenantId, event)).rejects.toBeInstanceOf(AuditEventError);
  });
});
