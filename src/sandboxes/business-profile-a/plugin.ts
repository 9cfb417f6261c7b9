import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { businessPage } from './page.js';
import { REVIEW_STATUSES, SandboxInputError, type BusinessProfileASandbox, type ReviewStatus, type SandboxAccount } from './service.js';

export const SANDBOX_PREFIX = '/sandbox/business-profile-a';

const BEARER_RE = /^Bearer ([A-Za-z0-9._~+/=-]{1,200})$/;
const ID_RE = /^[0-9a-f-]{36}$/;

/**
 * The sandbox's HTTP face (docs/providers.md), outside tenancy and OpenAPI: the provider's
 * routes under SANDBOX_PREFIX, authenticated by the account's API key as a bearer token.
 * Errors answer the provider's shape `{ errors: [{ message }] }`.
 */
export function businessProfileASandboxRoutes(app: FastifyInstance, sandbox: BusinessProfileASandbox): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 4096 }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  const config = { tenancy: false } as const;
  const schema = { hide: true } as const;
  const fail = (reply: FastifyReply, status: number, message: string) => reply.status(status).send({ errors: [{ message }] });

  async function account(request: FastifyRequest, reply: FastifyReply): Promise<SandboxAccount | undefined> {
    const match = BEARER_RE.exec(request.headers.authorization ?? '');
    const found = match?.[1] ? await sandbox.lookupAccount(match[1]) : undefined;
    if (!found) await fail(reply, 401, 'Unauthorized: unknown API key');
    return found;
  }

  app.post(`${SANDBOX_PREFIX}/v1/businesses`, { config, schema }, async (request, reply) => {
    const acct = await account(request, reply);
    if (!acct) return reply;
    try {
      return reply.status(201).send(await sandbox.create(acct, request.body));
    } catch (error) {
      if (error instanceof SandboxInputError) return fail(reply, 422, error.message);
      throw error;
    }
  });

  app.get<{ Params: { id: string } }>(`${SANDBOX_PREFIX}/v1/businesses/:id`, { config, schema }, async (request, reply) => {
    const acct = await account(request, reply);
    if (!acct) return reply;
    const business = ID_RE.test(request.params.id) ? await sandbox.get(acct, request.params.id) : undefined;
    return business ? business : fail(reply, 404, 'Business not found');
  });

  // Sandbox only: decide the review, as the provider's analysts would; sends business.updated.
  app.post<{ Params: { id: string } }>(`${SANDBOX_PREFIX}/v1/businesses/:id/review`, { config, schema }, async (request, reply) => {
    const acct = await account(request, reply);
    if (!acct) return reply;
    const status = (request.body as { status?: unknown } | undefined)?.status;
    if (typeof status !== 'string' || !(REVIEW_STATUSES as readonly string[]).includes(status)) {
      return fail(reply, 422, `status must be one of ${REVIEW_STATUSES.join(', ')}`);
    }
    const result = ID_RE.test(request.params.id) ? await sandbox.review(acct.accountId, request.params.id, status as ReviewStatus) : undefined;
    return result ? { ...result.business, webhook_delivery: result.delivery } : fail(reply, 404, 'Business not found');
  });

  // The review page, as the provider's dashboard would show it: opened by the business id
  // (random, known only to the account and the entity's members), like the IDV sandbox pages.
  const HTML = 'text/html; charset=utf-8';
  const pagePath = (id: string) => `${SANDBOX_PREFIX}/businesses/${id}`;
  app.get<{ Params: { id: string } }>(`${SANDBOX_PREFIX}/businesses/:id`, { config, schema }, async (request, reply) => {
    const found = ID_RE.test(request.params.id) ? await sandbox.findAny(request.params.id) : undefined;
    if (!found) return reply.status(404).type(HTML).send('<!doctype html><p>Unknown business</p>');
    return reply.type(HTML).send(businessPage(found.business, pagePath(request.params.id)));
  });
  app.post<{ Params: { id: string } }>(`${SANDBOX_PREFIX}/businesses/:id`, { config, schema }, async (request, reply) => {
    const status = (request.body as { status?: unknown } | undefined)?.status;
    const found = ID_RE.test(request.params.id) ? await sandbox.findAny(request.params.id) : undefined;
    if (!found) return reply.status(404).type(HTML).send('<!doctype html><p>Unknown business</p>');
    if (typeof status !== 'string' || !(REVIEW_STATUSES as readonly string[]).includes(status)) {
      return reply.status(422).type(HTML).send('<!doctype html><p>Choose in_review, approved or rejected</p>');
    }
    const result = (await sandbox.review(found.accountId, request.params.id, status as ReviewStatus))!;
    return reply.type(HTML).send(businessPage(result.business, pagePath(request.params.id), result.delivery));
  });
}
