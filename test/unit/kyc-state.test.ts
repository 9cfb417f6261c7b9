import { describe, expect, it } from 'vitest';
import { allowedFrom, canTransition, eventFor, EXPIRING_STATUSES, FINAL_STATUSES, isKycStatus, KYC_STATUSES, type KycStatus } from '../../src/modules/kyc/state.js';

/**
 * The moves the KYC record may make, written out here independently of state.ts: before the
 * person submits (created, started, resubmission_requested) anything but going back to created;
 * once submitted only review or a decision; nothing leaves a final status.
 */
const ALLOWED: Record<KycStatus, KycStatus[]> = {
  created: ['started', 'submitted', 'review', 'approved', 'declined', 'resubmission_requested', 'expired', 'abandoned'],
  started: ['submitted', 'review', 'approved', 'declined', 'resubmission_requested', 'expired', 'abandoned'],
  submitted: ['review', 'approved', 'declined', 'resubmission_requested'],
  review: ['approved', 'declined', 'resubmission_requested'],
  resubmission_requested: ['started', 'submitted', 'review', 'approved', 'declined', 'expired', 'abandoned'],
  approved: [],
  declined: [],
  expired: [],
  abandoned: [],
};

const EVERY_MOVE = KYC_STATUSES.flatMap((from) => KYC_STATUSES.map((to) => [from, to, ALLOWED[from].includes(to)] as const));

describe('KYC transitions', () => {
  it('lists nine statuses', () => {
    expect([...KYC_STATUSES].sort()).toEqual(Object.keys(ALLOWED).sort());
  });

  it.each(EVERY_MOVE)('%s -> %s allowed: %s', (from, to, allowed) => {
    expect(canTransition(from, to)).toBe(allowed);
  });

  it.each(KYC_STATUSES)('allowedFrom(%s) is exactly the allowed moves', (from) => {
    expect([...allowedFrom(from)].sort()).toEqual([...ALLOWED[from]].sort());
  });

  it('never moves into created, and no status moves to itself', () => {
    for (const from of KYC_STATUSES) {
      expect(canTransition(from, 'created')).toBe(false);
      expect(canTransition(from, from)).toBe(false);
    }
  });

  it.each(FINAL_STATUSES)('%s is final: nothing moves out of it', (status) => {
    expect(allowedFrom(status)).toEqual([]);
  });

  it('the final statuses are the decisions and the two ends without one', () => {
    expect([...FINAL_STATUSES].sort()).toEqual(['abandoned', 'approved', 'declined', 'expired']);
  });

  it('a late webhook cannot undo a submission: submitted and review never go back to the person', () => {
    for (const from of ['submitted', 'review'] as const) {
      for (const back of ['created', 'started', 'expired', 'abandoned'] as const) expect(canTransition(from, back)).toBe(false);
    }
    expect(canTransition('review', 'submitted')).toBe(false);
  });

  it('the expiring statuses are those where the person still acts, and each may move to expired', () => {
    expect([...EXPIRING_STATUSES].sort()).toEqual(['created', 'resubmission_requested', 'started']);
    for (const status of EXPIRING_STATUSES) expect(canTransition(status, 'expired')).toBe(true);
    for (const status of KYC_STATUSES.filter((s) => !EXPIRING_STATUSES.includes(s))) expect(canTransition(status, 'expired')).toBe(false);
  });
});

describe('isKycStatus and eventFor', () => {
  it.each(KYC_STATUSES)('%s is a status with the event kyc.%s', (status) => {
    expect(isKycStatus(status)).toBe(true);
    expect(eventFor(status)).toBe(`kyc.${status}`);
  });

  it.each(['', 'APPROVED', 'approved ', 'pending', 'toString', '__proto__', 'constructor'])('%j is not a status', (value) => {
    expect(isKycStatus(value)).toBe(false);
  });
});
