import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Harness, TestTenant } from '../helpers/harness.js';

/** A small, structurally whole PDF (header, one page, xref table, trailer, startxref, %%EOF). */
export function makePdf(options: { encrypted?: boolean; text?: string } = {}): Buffer {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R >>`,
    `<< /Length 20 >>\nstream\n(${(options.text ?? 'Agreement').slice(0, 12).padEnd(12)}) Tj\nendstream`,
  ];
  if (options.encrypted) objects.push('<< /Filter /Standard /V 1 /R 2 /O <00> /U <00> /P -4 >>');
  let body = '%PDF-1.7\n';
  const offsets: number[] = [];
  objects.forEach((content, i) => {
    offsets.push(Buffer.byteLength(body, 'latin1'));
    body += `${i + 1} 0 obj\n${content}\nendobj\n`;
  });
  const xref = Buffer.byteLength(body, 'latin1');
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`;
  const encrypt = options.encrypted ? ` /Encrypt ${objects.length} 0 R` : '';
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R${encrypt} >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

export const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
export const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

/** A multipart/form-data body: fields first, then each file part. */
export function multipartBody(fields: Record<string, string>, files: Array<{ name: string; filename: string; type: string; content: Buffer }>) {
  const boundary = `----bastion${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  for (const file of files) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${file.name}"; filename="${file.filename}"\r\nContent-Type: ${file.type}\r\n\r\n`));
    chunks.push(file.content, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** POST /user-documents with one file (a PDF by default). */
export async function upload(
  h: Harness,
  headers: Record<string, string>,
  fields: Record<string, string> = { type: 'identity', name: 'Passport' },
  content: Buffer = makePdf(),
  claimed = 'application/pdf',
) {
  const form = multipartBody(fields, [{ name: 'file', filename: 'doc', type: claimed, content }]);
  return h.inject({ method: 'POST', url: '/user-documents', headers: { ...headers, 'content-type': form.contentType }, payload: form.payload });
}

export async function createTenantDocument(h: Harness, tenant?: TestTenant, content: Buffer = makePdf({ text: 'Subscription' }), title = 'Subscription agreement') {
  const res = await h.inject({ method: 'POST', url: '/tenant-documents', headers: h.keyHeaders(tenant), payload: { title, metadata: { fund: 'I' }, contentBase64: content.toString('base64') } });
  if (res.statusCode !== 201) throw new Error(`tenant document: ${res.statusCode} ${res.body}`);
  return res.json() as { id: string; sha256: string };
}

/** A loopback HTTP server with one handler per path; answers 404 elsewhere. */
export async function fileServer(routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void>): Promise<{ url: (path: string) => string; server: Server; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    const handler = routes[req.url ?? ''];
    if (handler) handler(req, res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
