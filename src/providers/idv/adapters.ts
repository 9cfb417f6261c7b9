import type { IdvHttpOptions } from './http-client.js';
import { createIdvAAdapter } from './idv-a/http.js';
import { createIdvBAdapter } from './idv-b/http.js';
import type { IdvPort } from './port.js';

/** Every identity-verification provider's adapter, by name. */
export function createIdvAdapters(options: IdvHttpOptions = {}): IdvPort {
  return { 'idv-a': createIdvAAdapter(options), 'idv-b': createIdvBAdapter(options) };
}
