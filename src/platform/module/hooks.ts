import type { DbOrTx } from '../db/client.js';

/**
 * The in-process domain hooks and what each carries. A hook runs inside the caller's
 * transaction (`db`), so what a subscriber writes commits or rolls back with the change.
 */
export interface HookPayloads {
  /** A field that feeds the identity tree changed (KYC, accreditation, profile). */
  'identity.changed': { tenantId: string; userId: string };
}

export type HookName = keyof HookPayloads;
type Handler<K extends HookName> = (payload: HookPayloads[K], db: DbOrTx) => Promise<void>;

export interface DomainHooks {
  on<K extends HookName>(name: K, handler: Handler<K>): void;
  /** Runs every subscriber in order, in the caller's transaction; a failure fails the change. */
  emit<K extends HookName>(name: K, payload: HookPayloads[K], db: DbOrTx): Promise<void>;
}

export function createDomainHooks(): DomainHooks {
  const handlers = new Map<HookName, Array<Handler<HookName>>>();
  return {
    on(name, handler) {
      const list = handlers.get(name) ?? [];
      list.push(handler as Handler<HookName>);
      handlers.set(name, list);
    },
    async emit(name, payload, db) {
      for (const handler of handlers.get(name) ?? []) await handler(payload, db);
    },
  };
}
