import type { WalletChain } from '../../providers/idv/port.js';

export interface SandboxSession {
  id: string;
  provider: 'idv-a' | 'idv-b';
  clientId: string;
  status: string;
  createdAt: Date;
  expiresAt: Date;
  /** idv-a */
  vendorData?: string;
  webhooks?: { event: string; decision: string };
  callback?: string;
  person?: { firstName?: string; lastName?: string };
  /** idv-b */
  reference?: string;
  flow?: 'web3' | 'regular';
  webhookUrl?: string;
  wallet?: { chain: WalletChain; address: string; message: string };
  /** What the last webhook deliveries answered, shown on the page. */
  deliveries: string[];
}

const MAX_SESSIONS = 10_000;

/**
 * The sandbox keeps its sessions in memory, as a stand-in provider may: they live as long as
 * the process (at most MAX_SESSIONS, oldest dropped first).
 */
export class SandboxStore {
  private readonly sessions = new Map<string, SandboxSession>();

  put(session: SandboxSession): void {
    if (this.sessions.size >= MAX_SESSIONS) {
      const oldest = this.sessions.keys().next().value;
      if (oldest !== undefined) this.sessions.delete(oldest);
    }
    this.sessions.set(session.id, session);
  }

  get(provider: SandboxSession['provider'], id: string): SandboxSession | undefined {
    const session = this.sessions.get(id);
    return session?.provider === provider ? session : undefined;
  }
}
