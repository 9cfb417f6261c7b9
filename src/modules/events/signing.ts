import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

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

/**
 * The Standard Webhooks request of one event: body `{type, timestamp, data}`; `webhook-id` the
 * event id (the same on every attempt and replay); `webhook-timestamp` the send time in
 * seconds; `webhook-signature` one `v1,<base64 HMAC-SHA256>` per live secret, space-separated
 * (two during the 24 hours after a rotation).
 */
export function signEvent(
  event: { id: string; type: string; createdAt: Date; payload: Record<string, unknown> },
  secrets: string[],
  sentAt: Date,
): SignedRequest {
  const body = JSON.stringify({ type: event.type, timestamp: event.createdAt.toISOString(), data: event.payload });
  const signature = secrets.map((secret) => new Webhook(secret).sign(event.id, sentAt, body)).join(' ');
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'Bastion-Webhooks/1',
      'webhook-id': event.id,
      'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
      'webhook-signature': signature,
    },
  };
}
