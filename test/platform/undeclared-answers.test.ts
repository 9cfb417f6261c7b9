import type { FastifySchema } from 'fastify';
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { createHarness } from '../helpers/harness.js';

const teapot = { statusCode: 418, error: "I'm a Teapot", message: 'Short and stout', code: 'TEAPOT' };

describe('the harness fails a test file whose routes answer a status they do not declare', () => {
  it('lists the undeclared answer (method, route, status, code) when it closes, and only that one', async () => {
    const h = await createHarness({
      beforeReady: (app) => {
        const response: FastifySchema['response'] = { 200: Type.Object({ ok: Type.Boolean() }) };
        app.get('/__test/teapot/:id', { config: { tenancy: false }, schema: { response } }, async (_request, reply) => reply.status(418).send(teapot));
        app.get('/__test/declared', { config: { tenancy: false }, schema: { response } }, async () => ({ ok: true }));
        // Outside tenancy and declaring nothing of its own: exempt (pages, sandboxes).
        app.get('/__test/undocumented', { config: { tenancy: false } }, async (_request, reply) => reply.status(418).send(teapot));
      },
    });
    expect((await h.inject({ method: 'GET', url: '/__test/teapot/7' })).statusCode).toBe(418);
    expect((await h.inject({ method: 'GET', url: '/__test/declared' })).statusCode).toBe(200);
    expect((await h.inject({ method: 'GET', url: '/__test/undocumented' })).statusCode).toBe(418);
    // The platform's own statuses are declared on every documented route: a 404 of a route's rule is not.
    expect((await h.inject({ method: 'GET', url: '/users/me', headers: { 'x-tenant-id': h.tenant.tenantId } })).statusCode).toBe(401);

    const closing = h.close();
    await expect(closing).rejects.toThrow(/^1 answer\(s\) with a status the route's schema.response does not declare/);
    await expect(closing).rejects.toThrow('  GET /__test/teapot/:id answered 418 (TEAPOT)');
  });

  it('closes quietly when every answer was declared', async () => {
    const h = await createHarness();
    expect((await h.inject({ method: 'GET', url: '/users/me', headers: { 'x-tenant-id': h.tenant.tenantId } })).statusCode).toBe(401);
    await expect(h.close()).resolves.toBeUndefined();
  });
});
