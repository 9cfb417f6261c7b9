import type { Principal } from '../http/guards.js';

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
