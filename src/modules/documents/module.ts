import type { BastionModule, Platform } from '../../platform/module/module.js';
import type { OutboundPolicy } from '../../platform/http/outbound.js';
import type { BlobStore } from '../../providers/storage/port.js';
import type { AuditService } from '../audit/service.js';
import type { UsersService } from '../users/service.js';
import { createDocumentsRepo } from './repo.js';
import { documentsRoutes } from './routes.js';
import { createDocumentsService, type DocumentsService } from './service.js';
import { createSigningService, type SigningService } from './signing-service.js';

export interface DocumentsOptions {
  /**
   * Test-only: admit http and loopback addresses (127.0.0.0/8, ::1) for from-URL imports, so a
   * test can serve the file. Not reachable from the environment; every other non-public
   * address (private, link-local, metadata) stays refused even then.
   */
  allowLoopbackUrls?: boolean;
  /** Whole-fetch deadline of a from-URL import (default 10 s). */
  fetchTimeoutMs?: number;
  /** Replaces the store chosen from the configuration (read by src/container.ts). */
  store?: BlobStore;
}

/** User documents, tenant documents and their signing by EVM and XRPL wallets. */
export function createDocumentsModule(
  platform: Platform,
  /** `store`: the blob store (src/providers/storage), chosen from the configuration by src/container.ts. */
  deps: { users: UsersService; audit: AuditService; store: BlobStore },
  options: DocumentsOptions = {},
): BastionModule<{ documents: DocumentsService; signing: SigningService }> {
  const { db, tx, clock, config } = platform;
  const repo = createDocumentsRepo(db);
  const { store } = deps;
  const policy: OutboundPolicy = { allowPrivate: false, allowLoopback: options.allowLoopbackUrls ?? false };
  const documents = createDocumentsService({
    repo,
    db,
    tx,
    clock,
    store,
    users: deps.users,
    audit: deps.audit,
    fetch: { policy, timeoutMs: options.fetchTimeoutMs ?? 10_000, maxRedirects: 3 },
  });
  const signing = createSigningService({
    repo,
    tx,
    clock,
    audit: deps.audit,
    limiter: platform.limiter,
    chainId: config.evm.chainId,
    evmChain: platform.chains.evm,
    xrplLedger: platform.chains.xrpl,
  });
  return {
    name: 'documents',
    services: { documents, signing },
    routes: { tenant: (scope) => documentsRoutes(scope, { documents, signing }) },
    referencesBlob: (key) => repo.referencesBlob(key),
  };
}
