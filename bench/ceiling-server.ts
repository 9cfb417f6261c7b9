// The ceilings of the plain reads, in a process of their own: the same Fastify and logging as
// the service (LOG_LEVEL, pino with its redaction and serializers, one access line per
// request), and nothing else.
//   GET /bare     a constant small JSON body: what Fastify alone costs per request.
//   GET /pk/:id   the primary-key SELECT of GET /users/me (the users repo's findById), through
//                 the same driver and pool (openDatabase: drizzle on a pg pool of the same size).
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/platform/db/client.js';
import { AccessLogController } from '../src/platform/log/access-log.js';
import { createLogger } from '../src/platform/log/logger.js';
import { createUsersRepo } from '../src/modules/users/repo.js';

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

await app.listen({ port: config.port, host: config.host });
const stop = () => {
  void app.close().then(() => database.close()).then(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
