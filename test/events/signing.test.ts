import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { newSigningSecret, signEvent, signingKey } from '../../src/modules/events/signing.js';

describe('signEvent', () => {
  it('signs as the standardwebhooks library does, one v1 signature per live key', () => {
    const secrets = [newSigningSecret(), newSigningSecret()];
    const event = { id: '01890a5d-ac96-774b-bcce-b302099a8057', type: 'user.created', createdAt: new Date('2026-11-27T05:00:00.123Z'), payload: { userId: 'u', email: 'é@example.com' } };
    const sentAt = new Date('2026-11-27T05:00:07.999Z');
    const signed = signEvent(event, secrets.map(signingKey), sentAt);
    expect(signed.body).toBe(JSON.stringify({ type: event.type, timestamp: '2026-11-27T05:00:00.123Z', data: event.payload }));
    expect(signed.headers['webhook-timestamp']).toBe(String(Math.floor(sentAt.getTime() / 1000)));
    expect(signed.headers['webhook-signature']).toBe(secrets.map((s) => new Webhook(s).sign(event.id, sentAt, signed.body)).join(' '));
    for (const secret of secrets) {
      const wh = new Webhook(secret);
      // verify() checks the timestamp against now: sign the same body at the current second.
      const now = signEvent(event, [signingKey(secret)], new Date());
      expect(wh.verify(now.body, now.headers)).toEqual(JSON.parse(now.body));
    }
  });
});
