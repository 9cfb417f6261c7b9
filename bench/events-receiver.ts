// The event receiver of the event-delivery row, in a process of its own: a bare node:http
// server that reads each POST body and answers 204 (what a webhook receiver does at least).
// Both the delivery worker and the bare POST loop of the ceiling send to it.
import { createServer } from 'node:http';

const port = Number(process.env.PORT ?? 0);
const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/health') {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    return;
  }
  req.resume();
  req.on('end', () => res.writeHead(204).end());
});
server.keepAliveTimeout = 60_000;
server.listen(port, '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
