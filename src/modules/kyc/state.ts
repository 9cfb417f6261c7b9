/**
 * KYC statuses (the idv-a provider's vocabulary, keyed on the string) and the transitions
 * between them. Anything not listed here is impossible: a 409 for a person, ignored for a
 * provider webhook (so a late or out-of-order webhook never undoes a decision).
 */
export const KYC_STATUSES = [
  'created',
  'started',
  'submitted',
  'review',
  'approved',
  'declined',
  'resubmission_requested',
  'expired',
  'abandoned',
] as const;
export type KycStatus = (typeof KYC_STATUSES)[number];

const TRANSITIONS: Record<KycStatus, readonly KycStatus[]> = {
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

/** Statuses that end an attempt: nothing moves a record out of them. */
export const FINAL_STATUSES: readonly KycStatus[] = ['approved', 'declined', 'expired', 'abandoned'];

/** Statuses in which the person still has to act; these expire when the session does. */
export const EXPIRING_STATUSES: readonly KycStatus[] = ['created', 'started', 'resubmission_requested'];

/** Sessions expire seven days after they are created. */
export const SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export function canTransition(from: KycStatus, to: KycStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

export function allowedFrom(from: KycStatus): readonly KycStatus[] {
  return TRANSITIONS[from];
}

export function isKycStatus(value: string): value is KycStatus {
  return (KYC_STATUSES as readonly string[]).includes(value);
}

/** The outbox event of a transition into `to`: kyc.approved, kyc.declined, ... */
export function eventFor(to: KycStatus): `kyc.${KycStatus}` {
  return `kyc.${to}`;
}
