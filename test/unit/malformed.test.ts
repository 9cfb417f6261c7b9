import { describe, expect, it } from 'vitest';
import { malformedRequests, type Operation } from '../helpers/malformed.js';

/** The test helper that derives malformed requests from a route's OpenAPI operation. */
describe('malformedRequests', () => {
  const operation: Operation = {
    parameters: [
      { in: 'path', name: 'walletId', schema: { type: 'string', format: 'uuid' } },
      { in: 'query', name: 'limit', schema: { type: 'integer', minimum: 1, maximum: 100 } },
      { in: 'query', name: 'order', schema: { type: 'string', enum: ['asc', 'desc'] } },
      { in: 'query', name: 'verbose', schema: { type: 'boolean' } },
      { in: 'query', name: 'label', schema: { type: 'string', maxLength: 10 } },
      { in: 'query', name: 'code', schema: { type: 'string', pattern: '^[a-z]+$' } },
      { in: 'query', name: 'free', schema: { type: 'string' } },
      { in: 'query', name: 'either', schema: { anyOf: [{ type: 'string' }, { type: 'integer' }] } as never },
      { in: 'header', name: 'x-tenant-id', schema: { type: 'string' } },
    ],
    requestBody: {
      content: {
        'application/json': {
          schema: {
            type: 'object',
            additionalProperties: false,
            properties: {
              name: { type: 'string' },
              amount: { type: 'number' },
              count: { type: 'integer' },
              active: { type: 'boolean' },
              meta: { type: 'object' },
              kind: { type: 'string', enum: ['a', 'b'] },
              fixed: { const: 'x' },
              any: { anyOf: [{ type: 'string' }] },
              nullable: { type: ['string', 'null'] },
              list: { type: 'array' },
            },
          },
        },
      },
    },
  };
  const id = '0b6e3b0e-8f0e-4c43-9d3e-6d1f1b9e8a11';
  const url = `/v1/wallets/${id}/things?limit=10`;
  const payload = { name: 'n', amount: 1 };
  const cases = malformedRequests('/v1/wallets/{walletId}/things', operation, url, payload);
  const byWhat = new Map(cases.map((c) => [c.what, c]));

  it('derives exactly the cases the schema makes certain', () => {
    expect(cases.map((c) => c.what)).toEqual([
      'a body that is an array',
      'body.name of the wrong type',
      'body.amount of the wrong type',
      'body.count of the wrong type',
      'body.active of the wrong type',
      'body.meta of the wrong type',
      'body.kind of the wrong type',
      'body.fixed of the wrong type',
      'an unknown body field',
      'path walletId=not-a-uuid',
      'query limit=101',
      'query order=not-in-the-list',
      'query verbose=not-a-boolean',
      'query label=xxxxxxxxxxx',
      'query code=!~',
    ]);
  });

  it.each([
    ['body.name of the wrong type', { name: { notA: 'string' }, amount: 1 }],
    ['body.amount of the wrong type', { name: 'n', amount: 'not-a-number' }],
    ['body.kind of the wrong type', { name: 'n', amount: 1, kind: { notIn: 'enum' } }],
    ['an unknown body field', { name: 'n', amount: 1, unexpectedField: 'x' }],
    ['a body that is an array', []],
  ])('%s keeps the other fields valid', (what, body) => {
    expect(byWhat.get(what)).toEqual({ what, url, payload: body });
  });

  it('changes only the one query value or path segment, keeping the valid payload', () => {
    expect(byWhat.get('query limit=101')).toEqual({ what: 'query limit=101', url: `/v1/wallets/${id}/things?limit=101`, payload });
    expect(byWhat.get('query order=not-in-the-list')?.url).toBe(`/v1/wallets/${id}/things?limit=10&order=not-in-the-list`);
    expect(byWhat.get('path walletId=not-a-uuid')).toEqual({ what: 'path walletId=not-a-uuid', url: '/v1/wallets/not-a-uuid/things?limit=10', payload });
  });

  it('answers nothing for an operation without parameters or body', () => {
    expect(malformedRequests('/v1/health', {}, '/v1/health', undefined)).toEqual([]);
  });

  it('skips a path parameter when the url does not have the template shape', () => {
    const only: Operation = { parameters: [{ in: 'path', name: 'walletId', schema: { type: 'string', format: 'uuid' } }] };
    expect(malformedRequests('/v1/wallets/{walletId}', only, '/v1/wallets/x/extra', undefined)).toEqual([]);
  });

  it('a long maxLength in a path is left alone (the router answers 414 first)', () => {
    const only: Operation = { parameters: [{ in: 'path', name: 'name', schema: { type: 'string', maxLength: 200 } }] };
    expect(malformedRequests('/v1/x/{name}', only, '/v1/x/y', undefined)).toEqual([]);
  });
});
