import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf, upload } from '../documents/fixtures.js';
import { EVENT_TYPES, TEST_EVENT_TYPE } from '../../src/platform/events/outbox.js';
import { derivedOperationId, errorCodesOfStatus } from '../../src/platform/http/openapi.js';
import { NAMED_SCHEMAS, TAGS } from '../../src/platform/http/openapi-components.js';
import { PATTERN_EXAMPLES, sampleSchema } from '../../src/platform/http/openapi-sampler.js';
import { createHarness, type Harness } from '../helpers/harness.js';

/**
 * The OpenAPI document as a contract (src/platform/http/openapi.ts): what Redocly's rules do not
 * check by themselves (`npm run api:lint` runs them in CI). Names, examples, headers, error
 * codes and webhooks.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- the OpenAPI document is walked as plain JSON */
let h: Harness;
let doc: any;
let operations: Array<{ method: string; path: string; op: any }>;
beforeAll(async () => {
  h = await createHarness();
  doc = (await h.inject({ method: 'GET', url: '/openapi.json' })).json();
  operations = Object.entries<Record<string, any>>(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
  );
});
afterAll(async () => h.close());

function resolved(node: any): any {
  return node?.$ref ? resolved(node.$ref.slice(2).split('/').reduce((at: any, key: string) => at?.[key], doc)) : node;
}

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1 with servers, license, contact and every tag described', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([{ url: '/', description: 'This deployment' }]);
    expect(doc.info.license.name).toBeTruthy();
    expect(doc.info.contact.name).toBeTruthy();
    const used = new Set(operations.flatMap(({ op }) => op.tags ?? []));
    expect([...used].filter((tag) => !doc.tags.some((t: any) => t.name === tag))).toEqual([]);
    expect(doc.tags.filter((t: any) => !t.description || !used.has(t.name)).map((t: any) => t.name)).toEqual([]);
    expect(doc.tags).toEqual(TAGS);
  });

  it('names every operation once, from its method and path; every operation has a summary, a description and a tag', () => {
    const ids = operations.map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(operations.filter(({ method, path, op }) => op.operationId !== derivedOperationId(method, path)).map(({ op }) => op.operationId)).toEqual([]);
    expect(derivedOperationId('GET', '/users/me')).toBe('getUsersMe');
    expect(derivedOperationId('DELETE', '/entities/{entityId}/users/{targetUserId}/permissions/{permission}')).toBe('deleteEntitiesByEntityIdUsersByTargetUserIdPermissionsByPermission');
    expect(derivedOperationId('GET', '/.well-known/jwks.json')).toBe('getWellKnownJwksJson');
    expect(operations.filter(({ op }) => !op.summary || !op.description || !op.tags?.length).map(({ method, path }) => `${method} ${path}`)).toEqual([]);
    const me = operations.find((o) => o.method === 'GET' && o.path === '/users/me')!;
    expect(me.op.description).toContain('a user’s access token');
  });

  it('reuses the named schemas by reference (User, TokenPair, Wallet, Transfer, the error body)', () => {
    const schemaOf = (method: string, path: string, status: string) => doc.paths[path][method].responses[status].content['application/json'].schema;
    expect(schemaOf('get', '/users/me', '200')).toEqual({ $ref: '#/components/schemas/UserProfile' });
    expect(schemaOf('post', '/users', '201')).toEqual({ $ref: '#/components/schemas/User' });
    expect(schemaOf('post', '/auth/refresh', '201')).toEqual({ $ref: '#/components/schemas/TokenPair' });
    expect(schemaOf('post', '/auth/email/login', '201').anyOf).toEqual([{ $ref: '#/components/schemas/TokenPair' }, { $ref: '#/components/schemas/TwoFactorChallenge' }]);
    expect(schemaOf('post', '/evm-eoas', '201')).toEqual({ $ref: '#/components/schemas/Wallet' });
    expect(schemaOf('get', '/non-custodial-evm/transfers/{id}', '200')).toEqual({ $ref: '#/components/schemas/Transfer' });
    expect(doc.components.schemas.UserList.properties.data.items).toEqual({ $ref: '#/components/schemas/User' });
    for (const name of [...Object.keys(NAMED_SCHEMAS), 'ErrorBody']) expect(doc.components.schemas[name], name).toBeDefined();
    expect(doc.components.schemas.ErrorBody.required).toEqual(['statusCode', 'error', 'message', 'code']);
  });

  it('shares the error answers; each lists the codes of its status as an enum, and says Retry-After on 429 and 503', () => {
    const refs = new Set<string>();
    for (const { op } of operations) {
      for (const [status, response] of Object.entries<any>(op.responses)) {
        if (Number(status) < 400) continue;
        expect(response).toEqual({ $ref: `#/components/responses/Error${status}` });
        refs.add(status);
      }
    }
    expect(refs.size).toBeGreaterThan(10);
    for (const status of refs) {
      const response = doc.components.responses[`Error${status}`];
      const [base, specific] = response.content['application/json'].schema.allOf;
      expect(base).toEqual({ $ref: '#/components/schemas/ErrorBody' });
      expect(specific.properties.code.enum).toEqual(errorCodesOfStatus(Number(status)));
      expect(specific.properties.code.enum.length, status).toBeGreaterThan(0);
      expect(specific.properties.code.enum).toContain(response.content['application/json'].example.code);
      expect(Object.keys(response.headers)).toContain('x-request-id');
      expect('retry-after' in response.headers, status).toBe(status === '429' || status === '503');
    }
    expect(doc.components.responses.Error400.content['application/json'].schema.allOf[1].properties.code.enum).toContain('VALIDATION_FAILED');
  });

  it('declares x-request-id and the rate-limit headers on every answer, and an example on every JSON body and main answer', () => {
    const problems: string[] = [];
    for (const { method, path, op } of operations) {
      const where = `${method} ${path}`;
      for (const [status, response] of Object.entries<any>(op.responses)) {
        const headers = resolved(response).headers ?? {};
        for (const name of ['x-request-id', 'x-ratelimit-limit', 'x-ratelimit-remaining']) if (!(name in headers)) problems.push(`${where} ${status} lacks ${name}`);
      }
      for (const [type, media] of Object.entries<any>(op.requestBody?.content ?? {})) if (!('example' in media)) problems.push(`${where} body ${type} has no example`);
      const main = Object.keys(op.responses).find((status) => status.startsWith('2'));
      const json = main ? op.responses[main].content?.['application/json'] : undefined;
      if (json && !('example' in json)) problems.push(`${where} ${main} has no example`);
    }
    expect(problems).toEqual([]);
    const signUp = doc.paths['/auth/email'].post;
    expect(signUp.requestBody.content['application/json'].example).toEqual({ email: 'ada@example.com', password: 'correct horse battery staple', fullName: 'Ada Lovelace' });
  });

  it('declares a document content answer as bytes (application/octet-stream), not JSON, and the route answers the bytes', async () => {
    const binary = operations.filter(({ op }) => Object.values<any>(op.responses).some((r) => r.content && Object.values<any>(r.content).some((m) => m.schema?.format === 'binary')));
    expect(binary.map(({ method, path }) => `${method} ${path}`).sort()).toEqual(['GET /tenant-documents/{id}/content', 'GET /user-documents/{id}/content']);
    for (const { op } of binary) expect(Object.keys(op.responses['200'].content)).toEqual(['application/octet-stream']);
    // What the generated client reads: the bytes as uploaded, with their own media type.
    const bytes = makePdf({ text: 'Bytes' });
    const headers = h.bearerHeaders(await h.tokenFor(await h.createUser()));
    const uploaded = await upload(h, headers, undefined, bytes);
    expect(uploaded.statusCode, uploaded.body).toBe(201);
    const { data, response } = await h.api(headers).GET('/user-documents/{id}/content', { params: { path: { id: uploaded.json().id } }, parseAs: 'arrayBuffer' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect(Buffer.from(data!)).toEqual(bytes);
  });

  it('declares the Idempotency-Key header and Idempotent-Replayed on the idempotent routes', () => {
    const idempotent = operations.filter(({ op }) => (op.parameters ?? []).some((p: any) => resolved(p).name === 'idempotency-key'));
    expect(idempotent.map(({ method, path }) => `${method} ${path}`)).toEqual(
      expect.arrayContaining([
        'POST /custody-a/vaults/{vaultId}/wallets/{walletId}/transactions/transfer',
        'POST /non-custodial-evm/transfers',
        'POST /non-custodian-xrpl/tx-submit',
        'PUT /non-custodian-xrpl/wallet/update/{address}',
      ]),
    );
    for (const { op } of idempotent) {
      const success = Object.entries<any>(op.responses).filter(([status]) => status.startsWith('2'));
      for (const [, response] of success) expect(Object.keys(response.headers)).toContain('idempotent-replayed');
    }
    const transfer = operations.find((o) => o.path === '/custody-a/vaults/{vaultId}/wallets/{walletId}/transactions/transfer')!;
    expect(transfer.op.parameters).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
    expect(transfer.op.description).toContain('Idempotent when a key is sent');
    const evm = operations.find((o) => o.method === 'POST' && o.path === '/non-custodial-evm/transfers')!;
    expect(evm.op.parameters).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
    // Required, in the header or the body's idempotentId: the header alone is optional.
    expect(evm.op.description).toContain('a key in the `Idempotency-Key` header or the `idempotentId` field is required');
  });

  it('lists every event type under webhooks, with its payload schema and the Standard Webhooks headers', () => {
    // Every event type, and the test event an endpoint is sent on request.
    expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_TYPES, TEST_EVENT_TYPE].sort());
    for (const type of [...EVENT_TYPES, TEST_EVENT_TYPE]) {
      const post = doc.webhooks[type].post;
      const body = post.requestBody.content['application/json'];
      expect(body.schema.properties.type).toEqual({ type: 'string', const: type });
      expect(resolved(body.schema.properties.data).type ?? resolved(body.schema.properties.data).anyOf, type).toBeDefined();
      expect(body.example.type).toBe(type);
      expect(post.security).toEqual([{ eventSignature: [] }]);
    }
    expect(doc.components.schemas.UserCreatedEventData.properties).toHaveProperty('email');
  });
});

describe('the example sampler', () => {
  it('has a value matching each pattern it lists', () => {
    const mismatched = Object.entries(PATTERN_EXAMPLES).filter(([pattern, value]) => !new RegExp(pattern, 'u').test(value));
    expect(mismatched).toEqual([]);
  });

  it('honours formats, enums, bounds, nullable alternatives and references', () => {
    const schema = {
      type: 'object',
      required: ['id'],
      properties: {
        id: { type: 'string', format: 'uuid' },
        kind: { enum: ['a', 'b'] },
        count: { type: 'integer', minimum: 5 },
        note: { anyOf: [{ type: 'null' }, { type: 'string', maxLength: 3 }] },
        email: { type: 'string' },
        item: { $ref: '#/components/schemas/Item' },
      },
    };
    expect(sampleSchema(schema, { Item: { type: 'array', items: { type: 'boolean' } } })).toEqual({
      id: '3fa85f64-5717-4562-b3fc-2c963f66afa6',
      kind: 'a',
      count: 5,
      note: 'str',
      email: 'ada@example.com',
      item: [true],
    });
  });
});
