import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alternatePaced, medianP99Ratio } from '../../bench/alternate.js';
import { poolPaced, runPaced, type PacedResult } from '../../bench/load/paced.js';

// The bench's steady-rate load (the login burst row): requests go out at their due times
// whatever the server does, and a request's latency runs from its due time, so a server stall
// counts in full for every request due during it, not only for those already in flight.

// The server runs on a thread of its own, so that its stall does not stop the load's timers.
// GET /stall blocks its event loop for 200 ms; GET /fail answers 500; anything else 200.
const serverSource = `
const { parentPort } = require('node:worker_threads');
const server = require('node:http').createServer((req, res) => {
  if (req.url === '/stall') { const until = Date.now() + 200; while (Date.now() < until); }
  res.statusCode = req.url === '/fail' ? 500 : 200;
  res.end('{}');
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
`;

let worker: Worker;
let baseUrl: string;

beforeAll(async () => {
  worker = new Worker(serverSource, { eval: true });
  const [port] = (await once(worker, 'message')) as [number];
  baseUrl = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  await worker.terminate();
});

const get = (path: string) => ({ method: 'GET' as const, path, headers: {} });

describe('runPaced: an open-loop load at a steady rate', () => {
  it('sends rate × duration requests and holds the rate', async () => {
    const r = await runPaced(baseUrl, { connections: 4, rate: 200, durationSec: 1, requests: [get('/')] });
    expect(r.requests).toBe(200);
    expect(r.latencies).toHaveLength(200);
    expect(r.failures).toBe(0);
    // The last request is due at 995 ms: the run lasts about a second, not as long as the server allows.
    expect(r.durationSec).toBeGreaterThanOrEqual(0.99);
    expect(r.rps).toBeGreaterThan(150);
    expect(r.rps).toBeLessThanOrEqual(202);
    expect(r.p50Ms).toBeLessThanOrEqual(r.p99Ms);
  });

  it('counts a 200 ms server stall in every request due during it, from its due time', async () => {
    // One /stall among 199 fast requests: 4 connections would hide the stall from all but the
    // requests in flight on them; due times show it in the ~40 due in those 200 ms.
    const requests = [get('/'), ...Array.from({ length: 59 }, () => get('/')), get('/stall'), ...Array.from({ length: 139 }, () => get('/'))];
    const r = await runPaced(baseUrl, { connections: 4, rate: 200, durationSec: 1, requests });
    const slow = r.latencies.filter((ms) => ms > 50).length;
    expect(slow).toBeGreaterThanOrEqual(25);
    expect(r.latencies.at(-1)).toBeGreaterThanOrEqual(190);
    expect(r.p99Ms).toBeGreaterThanOrEqual(150);
    expect(r.p50Ms).toBeLessThan(50);
  });

  it('counts its own lateness: requests sent late are measured from when they were due', async () => {
    // This thread (the load's) busy for 100 ms from about 300 ms: the ~20 requests due then
    // go out late, when it is free again, and their latency includes the wait.
    const block = setTimeout(() => {
      const until = performance.now() + 100;
      while (performance.now() < until);
    }, 300);
    const r = await runPaced(baseUrl, { connections: 4, rate: 200, durationSec: 1, requests: [get('/')] });
    clearTimeout(block);
    expect(r.requests).toBe(200);
    expect(r.latencies.filter((ms) => ms > 50).length).toBeGreaterThanOrEqual(8);
    expect(r.latencies.at(-1)).toBeGreaterThanOrEqual(90);
  });

  it('counts answers outside 2xx and 3xx as failures', async () => {
    const r = await runPaced(baseUrl, { connections: 2, rate: 100, durationSec: 0.5, requests: [get('/'), get('/fail')] });
    expect(r.requests).toBe(50);
    expect(r.failures).toBe(25);
  });

  it('pools runs: their latencies together, their durations and failures added', async () => {
    const a = await runPaced(baseUrl, { connections: 2, rate: 100, durationSec: 0.3, requests: [get('/')] });
    const b = await runPaced(baseUrl, { connections: 2, rate: 100, durationSec: 0.3, requests: [get('/fail')] });
    const pooled = poolPaced([a, b]);
    expect(pooled.requests).toBe(60);
    expect(pooled.failures).toBe(30);
    expect(pooled.durationSec).toBeCloseTo(a.durationSec + b.durationSec, 6);
    expect([...pooled.latencies]).toEqual([...a.latencies, ...b.latencies].sort((x, y) => x - y));
    expect(pooled.p99Ms).toBe(pooled.latencies[Math.floor(0.99 * 60)]);
  });
});

describe('alternatePaced: sides in alternating rounds, compared round by round', () => {
  it('runs a warm-up round it does not count, then the rounds, each side pooled and each round kept', async () => {
    const seen: number[] = [];
    const { pooled, rounds } = await alternatePaced(
      baseUrl,
      [
        { spec: { connections: 2, rate: 100, durationSec: 0, requests: [get('/')] } },
        {
          spec: { connections: 2, rate: 100, durationSec: 0, requests: [get('/fail')] },
          around: async (segment, seconds, round) => {
            seen.push(round);
            expect(seconds).toBeCloseTo(round < 0 ? 0.2 : 0.3, 6);
            return segment();
          },
        },
      ],
      { durationSec: 0.9, rounds: 3, warmupSec: 0.2 },
    );
    expect(seen).toEqual([-1, 0, 1, 2]);
    expect(rounds).toHaveLength(3);
    expect(rounds.every((round) => round.length === 2 && round[0]!.requests === 30 && round[1]!.failures === 30)).toBe(true);
    // The warm-up's 20 requests a side are not in the pooled figures.
    expect(pooled[0]!.requests).toBe(90);
    expect(pooled[0]!.failures).toBe(0);
    expect(pooled[1]!.requests).toBe(90);
    expect(pooled[1]!.failures).toBe(90);
  });

  it('loads a side with a server of its own on that server (a bound beside the service)', async () => {
    // The comparison's own server is one that is not listening: only the side's own answers.
    const closed = 'http://127.0.0.1:9';
    const { pooled } = await alternatePaced(closed, [{ spec: { connections: 2, rate: 100, durationSec: 0, requests: [get('/')] }, baseUrl }], {
      durationSec: 0.3,
      rounds: 1,
      warmupSec: 0.1,
    });
    expect(pooled[0]!.requests).toBe(30);
    expect(pooled[0]!.failures).toBe(0);
  });

  it('takes the median of the rounds\' p99 ratios, so that one round\'s stall does not decide it', () => {
    const at = (p99Ms: number) => ({ p99Ms }) as PacedResult;
    // A 100 ms stall in one round of side a and one of side b: the pooled p99s would be 100
    // against 100; round by round, b is about twice a (the middle round's 21 over 11).
    const rounds = [
      [at(10), at(20)],
      [at(100), at(22)],
      [at(11), at(21)],
      [at(9), at(100)],
      [at(10), at(19)],
    ];
    expect(medianP99Ratio(rounds, 0, 1)).toBeCloseTo(21 / 11, 6);
    expect(medianP99Ratio(rounds, 1, 0)).toBeCloseTo(11 / 21, 6);
    // An even number of rounds: the mean of the two middle ratios (21/11 and 20/10).
    expect(medianP99Ratio(rounds.slice(0, 4), 0, 1)).toBeCloseTo((21 / 11 + 2) / 2, 6);
  });
});
