import { Readable } from 'node:stream';

export const NDJSON = 'application/x-ndjson';

/** True when the Accept header lists application/x-ndjson (with a non-zero q). */
export function acceptsNdjson(accept: string | undefined): boolean {
  if (!accept) return false;
  return accept.split(',').some((part) => {
    const [type, ...params] = part.trim().toLowerCase().split(';').map((p) => p.trim());
    if (type !== NDJSON) return false;
    const q = params.find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/**
 * A byte stream of newline-delimited JSON over chunks of rows read on demand: the next chunk is
 * pulled from `chunks` only when the consumer has taken the previous one (Readable's
 * backpressure: at most `highWaterMark` bytes wait in the stream), and a consumer that goes
 * away ends the generator (its `finally` runs, no further query is made).
 */
export function ndjsonStream(chunks: AsyncIterable<readonly unknown[]>, highWaterMark = 64 * 1024): Readable {
  async function* lines(): AsyncGenerator<Buffer> {
    for await (const rows of chunks) {
      if (rows.length === 0) continue;
      yield Buffer.from(rows.map((row) => JSON.stringify(row)).join('\n') + '\n', 'utf8');
    }
  }
  return Readable.from(lines(), { objectMode: false, highWaterMark });
}
