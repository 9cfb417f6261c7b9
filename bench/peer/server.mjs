// The Node peer of `npm run bench:peer` (issue #30): better-auth with the settings of the
// comparison: PostgreSQL (its own database on the same server) through a pg pool of 20,
// email and password with argon2id m=19456 t=2 p=1 through @node-rs/argon2, the bearer and
// jwt plugins (EdDSA / Ed25519), the rate limiter and telemetry off. Served by node:http.
// Environment: PEER_DATABASE_URL, PORT. Migrates its tables at start (better-auth's own
// migrations), then answers GET /health.
import { createServer } from 'node:http';
import process from 'node:process';
import { hash, verify } from '@node-rs/argon2';
import { betterAuth } from 'better-auth';
import { getMigrations } from 'better-auth/db/migration';
import { toNodeHandler } from 'better-auth/node';
import { bearer, jwt } from 'better-auth/plugins';
import pg from 'pg';

const port = Number(process.env.PORT);
const argon2 = { memoryCost: 19456, timeCost: 2, parallelism: 1, algorithm: 2 };
const pool = new pg.Pool({ connectionString: process.env.PEER_DATABASE_URL, max: 20 });

const auth = betterAuth({
  database: pool,
  baseURL: `http://127.0.0.1:${port}`,
  secret: 'bench-peer-secret-0123456789abcdef0123456789abcdef',
  emailAndPassword: {
    enabled: true,
    password: {
      hash: (password) => hash(password, argon2),
      verify: ({ hash: stored, password }) => verify(stored, password, argon2),
    },
  },
  plugins: [bearer(), jwt({ jwks: { keyPairConfig: { alg: 'EdDSA', crv: 'Ed25519' } } })],
  rateLimit: { enabled: false },
  telemetry: { enabled: false },
});

const { runMigrations } = await getMigrations(auth.options);
await runMigrations();

const handler = toNodeHandler(auth);
const server = createServer((request, response) => {
  if (request.url === '/health') {
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    return;
  }
  void handler(request, response);
});
server.keepAliveTimeout = 60_000;
server.listen(port, '127.0.0.1');
const stop = () => server.close(() => pool.end().then(() => process.exit(0)));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
