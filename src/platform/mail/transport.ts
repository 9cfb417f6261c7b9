import type { MailMessage } from './outbox.js';

/** A message ready to leave: the outbox message plus its sender. */
export interface OutgoingMail extends MailMessage {
  from: string;
  /** The outbox row id: becomes the Message-ID (so a repeat is recognisable) and names .eml files. */
  id?: string;
}

/** Where mail goes. `send` resolves once the message is accepted, and rejects otherwise. */
export interface MailTransport {
  readonly kind: 'smtp' | 'file';
  send(message: OutgoingMail): Promise<void>;
  close(): Promise<void>;
}

/** `<id@domain-of-from>`, a stable Message-ID for an outbox row. */
export function messageIdFor(id: string, from: string): string {
  const address = /<([^>]*)>\s*$/.exec(from)?.[1] ?? from;
  const domain = address.split('@')[1]?.trim() || 'bastion.local';
  return `<${id}@${domain}>`;
}
