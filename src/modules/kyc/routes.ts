import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Access } from '../../platform/http/access.js';
import { contextOf } from '../../platform/http/context.js';
import { errorResponses } from '../../platform/http/schemas.js';
import {
  ApproveBody,
  AttemptsQuery,
  CreateSessionBody,
  InitiateKycBody,
  KycAttempt,
  KycAttemptDetail,
  KycIdParam,
  KycIdQuery,
  KycList,
  ListKycsQuery,
  ReasonBody,
  SessionCreated,
  UpdateKycBody,
  UserKycQuery,
} from './schemas.js';
import type { KycService } from './service.js';


export function kycRoutes(app: FastifyInstance, deps: { kyc: KycService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { kyc } = deps;
  const tags = ['KYC'];

  for (const url of ['/kyc', '/kyc/idv-a/session']) {
    r.post(
      url,
      {
        config: { auth: Access.user },
        schema: {
          tags,
          summary: 'Start an identity-verification session at idv-a for the calling user',
          description: 'Answers the kycId and the sessionUrl to send the person to. The body is optional.',
          body: CreateSessionBody,
          response: { 201: SessionCreated, ...errorResponses(403, 404, 502, 503) },
        },
      },
      async (request, reply) =>
        reply.status(201).send(await kyc.createSession(contextOf(request, Access.user), request.body ?? null)),
    );
  }

  r.get(
    '/kyc',
    {
      config: { auth: Access.apiKeyOrUser },
      schema: {
        tags,
        summary: "A user's KYC attempts, newest first (the user, an admin or an API key)",
        querystring: UserKycQuery,
        response: { 200: KycList, ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const { userId, limit, offset } = request.query;
      return kyc.listForUser(contextOf(request, Access.apiKeyOrUser), userId, { limit, offset });
    },
  );

  r.get(
    '/kyc/current/:kycId',
    {
      config: { auth: Access.apiKeyOrUser },
      schema: { tags, summary: 'One KYC attempt with its history', params: KycIdParam, response: { 200: KycAttemptDetail, ...errorResponses(403, 404) } },
    },
    async (request) => kyc.getAttempt(request.tenant.id, request.params.kycId, contextOf(request, Access.apiKeyOrUser)),
  );

  r.get(
    '/kyc/current',
    {
      config: { auth: Access.apiKeyOrUser },
      schema: {
        tags,
        summary: 'One KYC attempt with its history (kycId in the query, as the spec declares)',
        querystring: KycIdQuery,
        response: { 200: KycAttemptDetail, ...errorResponses(403, 404) },
      },
    },
    async (request) => kyc.getAttempt(request.tenant.id, request.query.kycId, contextOf(request, Access.apiKeyOrUser)),
  );

  r.get(
    '/kyc/attempts',
    {
      config: { auth: Access.user },
      schema: {
        tags,
        summary: "The calling user's KYC attempts, newest first (poll until status is approved)",
        querystring: AttemptsQuery,
        response: { 200: KycList, ...errorResponses(403, 404) },
      },
    },
    async (request) => kyc.listForUser({ ...contextOf(request, Access.user), privileged: false }, undefined, request.query),
  );

  r.get(
    '/kyc/kycs',
    {
      config: { auth: Access.apiKeyOrAdmin },
      schema: {
        tags,
        summary: 'Every KYC record of the tenant, newest first (paged; filter by status, user, provider)',
        querystring: ListKycsQuery,
        response: { 200: KycList, ...errorResponses(403) },
      },
    },
    async (request) => {
      const { limit, offset, ...filters } = request.query;
      return kyc.listAll(request.tenant.id, filters, { limit, offset });
    },
  );

  r.post(
    '/kyc/kyc',
    {
      config: { auth: Access.apiKeyOrAdmin },
      schema: {
        tags,
        summary: 'Initiate a KYC registration for a user (idv-a session, or a manual record for review)',
        body: InitiateKycBody,
        response: { 201: SessionCreated, ...errorResponses(403, 404, 502, 503) },
      },
    },
    async (request, reply) => reply.status(201).send(await kyc.initiate(contextOf(request, Access.apiKeyOrAdmin), request.body)),
  );

  r.patch(
    '/kyc/:kycId',
    {
      config: { auth: Access.apiKeyOrAdmin },
      schema: {
        tags,
        summary: "Manually update a record's fields (audited; the status changes only through the review routes)",
        params: KycIdParam,
        body: UpdateKycBody,
        response: { 200: KycAttempt, ...errorResponses(403, 404) },
      },
    },
    async (request) => kyc.update(request.tenant.id, request.params.kycId, request.body, contextOf(request, Access.apiKeyOrAdmin).actor),
  );

  r.put(
    '/kyc/approve/:kycId',
    {
      config: { auth: Access.apiKeyOrAdmin },
      schema: {
        tags,
        summary: 'Approve a record (manual review); optional reason and level',
        params: KycIdParam,
        body: ApproveBody,
        response: { 200: KycAttempt, ...errorResponses(403, 404, 409) },
      },
    },
    async (request) =>
      kyc.approve(request.tenant.id, request.params.kycId, contextOf(request, Access.apiKeyOrAdmin).actor, request.body?.reason ?? null, request.body?.level),
  );

  r.put(
    '/kyc/reject/:kycId',
    {
      config: { auth: Access.apiKeyOrAdmin },
      schema: { tags, summary: 'Decline a record (manual review); no body needed, a reason is stored when given', params: KycIdParam, body: ReasonBody, response: { 200: KycAttempt, ...errorResponses(403, 404, 409) } },
    },
    async (request) => kyc.reject(request.tenant.id, request.params.kycId, contextOf(request, Access.apiKeyOrAdmin).actor, request.body.reason ?? null),
  );

  r.put(
    '/kyc/request-resubmission/:kycId',
    {
      config: { auth: Access.apiKeyOrAdmin },
      schema: {
        tags,
        summary: 'Ask the person to resubmit (manual review); no body needed, a reason is stored when given',
        params: KycIdParam,
        body: ReasonBody,
        response: { 200: KycAttempt, ...errorResponses(403, 404, 409) },
      },
    },
    async (request) => kyc.requestResubmission(request.tenant.id, request.params.kycId, contextOf(request, Access.apiKeyOrAdmin).actor, request.body.reason ?? null),
  );
}
