import type { Principal } from '../http/principal.js';

export type ActorType = 'user' | 'apiKey' | 'provider' | 'system';

/** Who made a change, as audit trails and events record it. */
export interface Actor {
  type: ActorType;
  id: string | null;
}

export function actorOf(principal: Principal | null): Actor {
  if (principal?.kind === 'apiKey') return { type: 'apiKey', id: principal.keyId };
  if (principal?.kind === 'user') return { type: 'user', id: principal.userId };
  return { type: 'system', id: null };
}

export const SYSTEM_ACTOR: Actor = { type: 'system', id: null };

/**
 * The same actor as the audit log names it (its column keeps the stored spelling `api_key`);
 * every module records through this one mapping.
 */
export function auditActor(actor: Actor): { actorType: 'user' | 'api_key' | 'system' | 'provider'; actorId: string | null } {
  if (actor.type === 'apiKey') return { actorType: 'api_key', actorId: actor.id };
  if (actor.type === 'user') return { actorType: 'user', actorId: actor.id };
  if (actor.type === 'provider') return { actorType: 'provider', actorId: actor.id };
  return { actorType: 'system', actorId: actor.id };
}

/** The actor of a stored audit row, as histories answer it (the inverse of auditActor). */
export function actorFromAudit(actorType: string, actorId: string | null): Actor {
  if (actorType === 'api_key') return { type: 'apiKey', id: actorId };
  if (actorType === 'user' || actorType === 'provider') return { type: actorType, id: actorId };
  return { type: 'system', id: actorId };
}
