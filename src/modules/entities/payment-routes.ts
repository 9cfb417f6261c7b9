import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Access } from '../../platform/http/access.js';
import { errorResponses } from '../../platform/http/schemas.js';
import { contextOf } from '../../platform/http/context.js';
import { CreatePaymentMethodBody, ListPaymentMethodsQuery, MethodParams, PaymentMethod, PaymentMethodList, UpdatePaymentMethodBody } from './payment-schemas.js';
import type { PaymentMethodsService } from './payment-service.js';
import { EntityParams } from './schemas.js';

const tags = ['Entities'];

/** Manual payment methods of an entity. */
export function paymentMethodRoutes(app: FastifyInstance, deps: { paymentMethods: PaymentMethodsService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { paymentMethods } = deps;

  r.post(
    '/entities/:id/manual-payment-methods',
    {
      config: { auth: Access.apiKeyOrUser },
      schema: {
        tags,
        summary: 'Add a manual payment method (needs manage_payment_methods)',
        params: EntityParams,
        body: CreatePaymentMethodBody,
        response: { 201: PaymentMethod, ...errorResponses(403, 404) },
      },
    },
    async (request, reply) => reply.status(201).send(await paymentMethods.create(contextOf(request, Access.apiKeyOrUser), request.params.id, request.body)),
  );

  r.get(
    '/entities/:id/manual-payment-methods',
    {
      config: { auth: Access.apiKeyOrUser },
      schema: {
        tags,
        summary: 'Payment methods (needs view; account numbers masked without manage_payment_methods)',
        params: EntityParams,
        querystring: ListPaymentMethodsQuery,
        response: { 200: PaymentMethodList, ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const { includeArchived, limit, offset } = request.query;
      return paymentMethods.list(contextOf(request, Access.apiKeyOrUser), request.params.id, includeArchived, { limit, offset });
    },
  );

  r.get(
    '/entities/:id/manual-payment-methods/:methodId',
    {
      config: { auth: Access.apiKeyOrUser },
      schema: { tags, summary: 'A payment method (needs view; masked as in the list)', params: MethodParams, response: { 200: PaymentMethod, ...errorResponses(403, 404) } },
    },
    async (request) => paymentMethods.get(contextOf(request, Access.apiKeyOrUser), request.params.id, request.params.methodId),
  );

  r.patch(
    '/entities/:id/manual-payment-methods/:methodId',
    {
      config: { auth: Access.apiKeyOrUser },
      schema: {
        tags,
        summary: 'Change the label, archive or restore, or replace the details (needs manage_payment_methods)',
        params: MethodParams,
        body: UpdatePaymentMethodBody,
        response: { 200: PaymentMethod, ...errorResponses(403, 404) },
      },
    },
    async (request) => paymentMethods.update(contextOf(request, Access.apiKeyOrUser), request.params.id, request.params.methodId, request.body),
  );
}
