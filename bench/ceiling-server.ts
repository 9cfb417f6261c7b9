// The ceilings of the plain reads, in a process of their own: the same Fastify and logging as
// the service (LOG_LEVEL, pino with its redaction and serializers, one access line per
// request), and nothing else.
//   GET /bare     a constant small JSON body: what Fastify alone costs per request.
//   GET /pk/:id   the primary-key SELECT of GET /users/me (the users repo's findById), through
//                 the same driver and pool (openDatabase: drizzle on a pg pool of the same size).
//   POST /hmac     the check of a signed idv-a webhook and nothing else: the raw JSON body kept,
//                  HMAC-SHA256 under BENCH_HMAC_SECRET compared in constant time with
//                  x-hmac-signature (the service's own verifyBodySignature), the body parsed,
//                  201 with an acknowledgement (401 when the signature does not match).
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/platform/db/client.js';
import { AccessLogController } from '../src/platform/log/access-log.js';
import { createLogger } from '../src/platform/log/logger.js';
import { createUsersRepo } from '../src/modules/users/repo.js';
import { SIGNATURE_HEADER, verifyBodySignature } from '../src/providers/idv/signature.js';

const config = loadConfig();
const tenantId = process.env.BENCH_TENANT_ID;
if (!tenantId) throw new Error('BENCH_TENANT_ID is required');

const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.databaseUrl ? undefined : config.dataDir });
const repo = createUsersRepo(database.db);
const logger = createLogger(config.logLevel);
const app = Fastify({ loggerInstance: logger as FastifyBaseLogger, logController: new AccessLogController(logger) });

app.get('/health', async () => ({ status: 'ok' }));
app.get('/bare', async () => ({ id: '0196c2a4-0000-7000-8000-000000000000', email: 'user@bench.example', ok: true }));
app.get<{ Params: { id: string } }>('/pk/:id', async (request, reply) => {
  const row = await repo.findById(tenantId, request.params.id);
  if (!row) return reply.status(404).send({ statusCode: 404 });
  return row;
});

const hmacSecret = process.env.BENCH_HMAC_SECRET;
if (hmacSecret) {
  await app.register(async (scope) => {
    scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    scope.post('/hmac', async (request, reply) => {
      const raw = request.body as Buffer;
      const signature = request.headers[SIGNATURE_HEADER];
      if (typeof signature !== 'string' || !verifyBodySignature(raw, signature, hmacSecret)) return reply.status(401).send({ statusCode: 401 });
      const body = JSON.parse(raw.toString('utf8')) as { verification?: { id?: string } };
      return reply.status(201).send({ received: true, applied: true, outcome: `applied ${body.verification?.id ?? ''}` });
    });
  });
}

await app.listen({ port: config.port, host: config.host });
const stop = () => {
  void app.close().then(() => database.close()).then(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
