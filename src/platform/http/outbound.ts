import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { setMaxListeners } from 'node:events';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, buildConnector, request as undiciRequest, type Dispatcher } from 'undici';

/**
 * The one guard for requests the service makes to addresses a tenant chose (event endpoints,
 * document fetches): server-side request forgery must not reach the service's own network.
 *
 * Production rule: `https` only, and every address the host resolves to must be public
 * unicast. Refused: loopback, private (RFC 1918), link-local (and with it the cloud metadata
 * address 169.254.169.254), CGNAT 100.64/10, unspecified, broadcast, multicast, reserved,
 * IPv6 ULA fc00::/7, link-local fe80::/10, IPv4-mapped ::ffff:0:0/96, NAT64, 6to4, Teredo.
 * The address is checked again when the socket connects (guardedConnector), so a name
 * that resolved to a public address at validation and to 127.0.0.1 later (DNS rebinding) is
 * refused at delivery.
 *
 * `allowPrivate` (EVENTS_ALLOW_PRIVATE_URLS=on, tests and development only) admits `http`
 * and private addresses; the unspecified address (0.0.0.0, ::) stays refused.
 */
export interface OutboundPolicy {
  allowPrivate: boolean;
  /**
   * Narrower than allowPrivate (document imports under test): admits `http` and the loopback
   * addresses (127.0.0.0/8, ::1) only; every other non-public address stays refused.
   */
  allowLoopback?: boolean;
}

export type OutboundRefusal = 'URL_INVALID' | 'URL_SCHEME' | 'URL_CREDENTIALS' | 'URL_UNRESOLVABLE' | 'URL_PRIVATE_ADDRESS';

export class OutboundRefusedError extends Error {
  constructor(
    readonly reason: OutboundRefusal,
    message: string,
  ) {
    super(message);
    this.name = 'OutboundRefusedError';
  }
}

/** Whether an IP address is public unicast (the only kind the production rule admits). */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.parse(address).range() === 'unicast';
}

function isUnspecified(address: string): boolean {
  return ipaddr.isValid(address) && ipaddr.parse(address).range() === 'unspecified';
}

function isLoopback(address: string): boolean {
  return ipaddr.isValid(address) && ipaddr.parse(address).range() === 'loopback';
}

function isRefused(address: string, policy: OutboundPolicy): boolean {
  if (policy.allowPrivate) return isUnspecified(address);
  if (policy.allowLoopback && isLoopback(address)) return false;
  return !isPublicAddress(address);
}

/** Checks scheme and shape without touching the network (the delivery-time half). */
export function parseOutboundUrl(raw: string, policy: OutboundPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundRefusedError('URL_INVALID', 'The URL is not an absolute URL');
  }
  const plain = policy.allowPrivate || policy.allowLoopback;
  const schemes = plain ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) {
    throw new OutboundRefusedError('URL_SCHEME', plain ? 'The URL must use http or https' : 'The URL must use https');
  }
  if (url.username || url.password) throw new OutboundRefusedError('URL_CREDENTIALS', 'The URL must not carry credentials');
  if (!url.hostname) throw new OutboundRefusedError('URL_INVALID', 'The URL has no host');
  return url;
}

const hostOf = (hostname: string) => hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * Validates a URL a tenant submits: shape and scheme, then resolves the host and refuses it
 * if any of its addresses is not public (under the production rule). A name that does not
 * resolve is refused too: an endpoint nobody can reach is a mistake to report now.
 */
export async function checkOutboundUrl(raw: string, policy: OutboundPolicy): Promise<URL> {
  const url = parseOutboundUrl(raw, policy);
  const host = hostOf(url.hostname);
  let addresses: string[];
  if (isIP(host)) {
    addresses = [host];
  } else {
    try {
      addresses = (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
    } catch {
      throw new OutboundRefusedError('URL_UNRESOLVABLE', `The host ${host} does not resolve`);
    }
  }
  if (addresses.length === 0) throw new OutboundRefusedError('URL_UNRESOLVABLE', `The host ${host} does not resolve`);
  for (const address of addresses) {
    if (isRefused(address, policy)) throw new OutboundRefusedError('URL_PRIVATE_ADDRESS', `The host ${host} resolves to a non-public address`);
  }
  return url;
}

/**
 * The connect-time half of the guard, for every request the service makes to a tenant's
 * address: the host's addresses are checked under the same rule as at validation (isRefused)
 * when the socket resolves them, before any packet leaves (a name that now resolves to a
 * refused address, DNS rebinding, is refused); an address written in the URL is checked before
 * connecting; and the address the socket reached is checked once more. Answers
 * OutboundRefusedError('URL_PRIVATE_ADDRESS').
 */
function guardedConnector(policy: OutboundPolicy): buildConnector.connector {
  const refusal = (host: string) => new OutboundRefusedError('URL_PRIVATE_ADDRESS', `The host ${host} resolves to a non-public address`);
  const lookup = (hostname: string, options: LookupOptions, callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '');
      if (addresses.length === 0 || addresses.some((a) => isRefused(a.address, policy))) return callback(refusal(hostname), '');
      if (options.all) callback(null, addresses);
      else callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
  const connect = buildConnector({ lookup: lookup as unknown as LookupFunction, timeout: 10_000 });
  return (options, callback) => {
    const host = hostOf(options.hostname);
    if (isIP(host) && isRefused(host, policy)) return callback(refusal(host), null);
    connect(options, (error, socket) => {
      if (error || !socket) return callback(error ?? refusal(host), null);
      const reached = socket.remoteAddress;
      if (!reached || isRefused(reached, policy)) {
        socket.destroy();
        return callback(refusal(host), null);
      }
      callback(null, socket);
    });
  };
}

// Keep-alive connection pools (undici) that check every address at connect time; one per policy.
const dispatchers = new Map<string, Agent>();

function dispatcherFor(policy: OutboundPolicy): Agent {
  const kind = policy.allowPrivate ? 'private' : policy.allowLoopback ? 'loopback' : 'strict';
  let agent = dispatchers.get(kind);
  if (!agent) {
    agent = new Agent({ connect: guardedConnector({ allowPrivate: policy.allowPrivate, allowLoopback: policy.allowLoopback }), connections: 64, keepAliveTimeout: 30_000, keepAliveMaxTimeout: 60_000 });
    dispatchers.set(kind, agent);
  }
  return agent;
}

export interface OutboundPost {
  headers: Record<string, string>;
  body: string;
  /** Whole-exchange deadline: connect, send, response headers and body. */
  timeoutMs: number;
}

export interface OutboundResponse {
  status: number;
}

const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * Deadlines, shared: the requests whose deadlines fall in the same 50 ms window share one
 * signal, one AbortController and one timer per window rather than per request (a signal per
 * event delivery was 5.6% of the delivery worker's CPU). A deadline fires at most 50 ms late;
 * it aborts with a TimeoutError (describeOutboundError: TIMEOUT).
 */
const DEADLINE_STEP_MS = 50;
const deadlines = new Map<number, AbortSignal>();

function deadlineSignal(timeoutMs: number): AbortSignal {
  const at = Math.ceil((Date.now() + timeoutMs) / DEADLINE_STEP_MS) * DEADLINE_STEP_MS;
  let signal = deadlines.get(at);
  if (!signal) {
    const controller = new AbortController();
    signal = controller.signal;
    // Every request of the window listens to it.
    setMaxListeners(0, signal);
    deadlines.set(at, signal);
    setTimeout(() => {
      deadlines.delete(at);
      controller.abort(new DOMException('No complete answer in time', 'TimeoutError'));
    }, at - Date.now()).unref();
  }
  return signal;
}

/**
 * POSTs under the policy: the URL is checked again (scheme), the address at connect time.
 * Redirects are not followed (a 3xx is the answer). The response body is read and dropped
 * (at most 64 KiB, then the connection is cut). Rejects on refusal, network error or timeout.
 */
export async function postOutbound(raw: string, request: OutboundPost, policy: OutboundPolicy): Promise<OutboundResponse> {
  return postOutboundTo(parseOutboundUrl(raw, policy), request, policy);
}

/**
 * postOutbound to a URL parseOutboundUrl gave under the same policy (a caller sending many
 * requests to one endpoint parses it once). Past the deadline the exchange is aborted (a
 * TimeoutError) and its connection closed. With tracing on, the undici instrumentation makes
 * the call a client span and sends its traceparent.
 */
export async function postOutboundTo(url: URL, request: OutboundPost, policy: OutboundPolicy): Promise<OutboundResponse> {
  const answer = await undiciRequest(url, { method: 'POST', dispatcher: dispatcherFor(policy), headers: request.headers, body: request.body, signal: deadlineSignal(request.timeoutMs) });
  // The status is the answer; the body is read and dropped (the deadline still holds over it),
  // and a failure reading it changes nothing.
  await answer.body.dump({ limit: MAX_RESPONSE_BYTES }).catch(() => undefined);
  return { status: answer.statusCode };
}

export interface OutboundGet {
  /** Whole-exchange deadline over every hop: connect, headers and body. */
  timeoutMs: number;
  /** The body is cut and the fetch refused (OutboundTooLargeError) past this many bytes. */
  maxBytes: number;
  /** Redirects followed (301, 302, 303, 307, 308), each checked like the first URL. */
  maxRedirects: number;
}

export interface OutboundBody {
  /** The URL the body came from (after redirects). */
  url: string;
  status: number;
  contentType: string | undefined;
  body: Buffer;
}

export class OutboundTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`The response is larger than ${maxBytes} bytes`);
    this.name = 'OutboundTooLargeError';
  }
}

export class OutboundFetchError extends Error {
  constructor(
    readonly reason: 'TIMEOUT' | 'TOO_MANY_REDIRECTS' | 'STATUS' | 'NETWORK',
    message: string,
  ) {
    super(message);
    this.name = 'OutboundFetchError';
  }
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * GETs a document under the policy. Every hop's URL is checked (scheme, and the addresses its
 * host resolves to) before it is requested, and the connecting address again at connect time,
 * so neither a redirect nor a DNS answer that changes reaches a refused address. The body is
 * read into memory up to `maxBytes`; a longer one is cut (OutboundTooLargeError), as is a
 * declared Content-Length over the limit. A non-2xx final answer is an OutboundFetchError.
 */
export async function getOutbound(raw: string, request: OutboundGet, policy: OutboundPolicy): Promise<OutboundBody> {
  const signal = deadlineSignal(request.timeoutMs);
  let current = raw;
  for (let hop = 0; ; hop++) {
    const url = await checkOutboundUrl(current, policy);
    const answer = await getOnce(url, request.maxBytes, policy, signal);
    if ('location' in answer) {
      if (hop >= request.maxRedirects) throw new OutboundFetchError('TOO_MANY_REDIRECTS', `More than ${request.maxRedirects} redirects`);
      current = new URL(answer.location, url).toString();
      continue;
    }
    if (answer.status < 200 || answer.status > 299) throw new OutboundFetchError('STATUS', `The server answered ${answer.status}`);
    return { url: url.toString(), ...answer };
  }
}

async function getOnce(url: URL, maxBytes: number, policy: OutboundPolicy, signal: AbortSignal): Promise<Omit<OutboundBody, 'url'> | { location: string }> {
  let answer: Dispatcher.ResponseData;
  try {
    answer = await undiciRequest(url, { method: 'GET', dispatcher: dispatcherFor(policy), headers: { accept: '*/*' }, signal });
  } catch (error) {
    if (signal.aborted) throw new OutboundFetchError('TIMEOUT', 'No complete answer in time');
    throw error instanceof Error ? error : new OutboundFetchError('NETWORK', 'The fetch failed');
  }
  const { statusCode: status, headers, body } = answer;
  const location = headers.location;
  if (REDIRECTS.has(status) && typeof location === 'string') {
    await body.dump({ limit: MAX_RESPONSE_BYTES }).catch(() => undefined);
    return { location };
  }
  const declared = Number(headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    body.destroy();
    throw new OutboundTooLargeError(maxBytes);
  }
  const chunks: Buffer[] = [];
  let received = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      received += chunk.length;
      if (received > maxBytes) {
        body.destroy();
        throw new OutboundTooLargeError(maxBytes);
      }
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof OutboundTooLargeError) throw error;
    if (signal.aborted) throw new OutboundFetchError('TIMEOUT', 'No complete answer in time');
    throw new OutboundFetchError('NETWORK', 'The answer was cut');
  }
  const contentType = headers['content-type'];
  return { status, contentType: Array.isArray(contentType) ? contentType[0] : contentType, body: Buffer.concat(chunks) };
}

/** A short, secret-free description of a failed exchange for rows and logs. */
export function describeOutboundError(error: unknown): string {
  if (error instanceof OutboundRefusedError) return `${error.reason}: ${error.message}`;
  const e = (error ?? {}) as { name?: unknown; code?: unknown; message?: unknown };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return 'TIMEOUT: no answer in time';
  const message = typeof e.message === 'string' ? e.message.split(/\r?\n/)[0]!.slice(0, 200) : 'unknown error';
  return `${typeof e.code === 'string' ? `${e.code}: ` : ''}${message}`;
}
