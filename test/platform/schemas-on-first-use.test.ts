import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { perPartValidators } from '../../src/platform/http/input.js';

/**
 * Validators and serializers are compiled at a route's first request, not at start
 * (src/platform/http/input.ts): an app with a schema Ajv cannot compile still starts, and the
 * route that holds it fails only when called; the others validate and serialize as before.
 */
describe('schemas compiled on first use', () => {
  async function app() {
    const app = Fastify({ schemaController: perPartValidators(), ajv: { customOptions: { allErrors: true } } });
    app.post(
      '/good',
      {
        schema: {
          body: { type: 'object', required: ['n'], additionalProperties: false, properties: { n: { type: 'integer', maximum: 10 } } },
          querystring: { type: 'object', properties: { limit: { type: 'integer' } } },
          response: { 200: { type: 'object', additionalProperties: false, properties: { n: { type: 'integer' }, limit: { type: 'integer' } } } },
        },
      },
      async (request) => ({ ...(request.body as object), ...(request.query as object), secret: 'not in the schema' }),
    );
    app.post('/broken', { schema: { body: { type: 'no-such-type' } } }, async () => ({ ok: true }));
    await app.ready();
    return app;
  }

  it('starts with a schema Ajv cannot compile; that route fails when called, and only it', async () => {
    const a = await app();
    const broken = await a.inject({ method: 'POST', url: '/broken', payload: {} });
    expect(broken.statusCode).toBe(500);
    const good = await a.inject({ method: 'POST', url: '/good?limit=5', payload: { n: 3 } });
    expect(good.statusCode).toBe(200);
    await a.close();
  });

  it('validates bodies exactly and query strings with coercion, and serializes by the response schema', async () => {
    const a = await app();
    const ok = await a.inject({ method: 'POST', url: '/good?limit=5', payload: { n: 3 } });
    expect(ok.json()).toEqual({ n: 3, limit: 5 });
    const wrongType = await a.inject({ method: 'POST', url: '/good', payload: { n: '3' } });
    expect(wrongType.statusCode).toBe(400);
    const tooLarge = await a.inject({ method: 'POST', url: '/good', payload: { n: 11 } });
    expect(tooLarge.statusCode).toBe(400);
    expect(tooLarge.json().message).toMatch(/maximum|<= 10/);
    const infinite = await a.inject({ method: 'POST', url: '/good?limit=1e309', payload: { n: 1 } });
    expect(infinite.statusCode).toBe(400);
    // The second call uses what the first compiled.
    expect((await a.inject({ method: 'POST', url: '/good', payload: { n: 4 } })).json()).toEqual({ n: 4 });
    await a.close();
  });
});
