import { createHmac, randomBytes } from 'node:crypto';

/** A new Standard Webhooks signing secret: `whsec_` + base64 of 32 random bytes. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** Associated data binding a sealed secret to its endpoint (a sealed value moved to another row fails to open). */
export const secretContext = (tenantId: string, endpointId: string) => `event-endpoint:${tenantId}:${endpointId}`;

export interface SignedRequest {
  headers: Record<string, string>;
  body: string;
}

/** A `whsec_` secret's HMAC key (the base64 after the prefix), decoded once for many signatures. */
export type SigningKey = Buffer;

export function signingKey(secret: string): SigningKey {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  if (key.length === 0) throw new Error("Secret can't be empty.");
  return key;
}

/**
 * The Standard Webhooks request of one event: body `{type, timestamp, data}`; `webhook-id` the
 * event id (the same on every attempt and replay); `webhook-timestamp` the send time in
 * seconds; `webhook-signature` one `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` per live
 * key, space-separated (two during the 24 hours after a rotation). The HMAC is node:crypto's,
 * the same signature the `standardwebhooks` library computes (its verify is what the tests use).
 */
export function signEvent(
  event: { id: string; type: string; createdAt: Date; payload: Record<string, unknown> },
  keys: SigningKey[],
  sentAt: Date,
): SignedRequest {
  const body = JSON.stringify({ type: event.type, timestamp: event.createdAt.toISOString(), data: event.payload });
  const timestamp = String(Math.floor(sentAt.getTime() / 1000));
  const signed = `${event.id}.${timestamp}.${body}`;
  const signature = keys.map((key) => `v1,${createHmac('sha256', key).update(signed).digest('base64')}`).join(' ');
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'Bastion-Webhooks/1',
      'webhook-id': event.id,
      'webhook-timestamp': timestamp,
      'webhook-signature': signature,
    },
  };
}
