import type { Harness, TestTenant } from '../helpers/harness.js';

export const VALID_LEI = '5493001KJTIIGC8Y1R12';
export const BAD_LEI = '5493001KJTIIGC8Y1R17';
export const IBAN = 'DE89370400440532013000';
export const BIC = 'DEUTDEFF';
export const ROUTING = '021000021';
export const EVM_ADDRESS = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
export const XRPL_ADDRESS = 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh';
export const BTC_ADDRESS = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
export const TIN = '12-3456789';

export const entityBody = (extra: Record<string, unknown> = {}) => ({
  legalName: 'Acme Holdings LLC',
  type: 'company',
  jurisdiction: 'US',
  registrationNumber: 'DE-1234567',
  address: { line1: '1 Main Street', city: 'Wilmington', region: 'DE', postalCode: '19801', country: 'US' },
  metadata: { sector: 'real-estate' },
  ...extra,
});

export const wireBody = (extra: Record<string, unknown> = {}) => ({
  kind: 'bank_wire',
  label: 'EUR operating',
  details: { accountHolderName: 'Acme Holdings LLC', iban: IBAN, bic: BIC, bankName: 'Deutsche Bank', bankAddress: 'Taunusanlage 12, Frankfurt', currency: 'EUR', ...extra },
});

export const achBody = () => ({
  kind: 'ach',
  details: { accountHolderName: 'Acme Holdings LLC', accountNumber: '000123456789', routingNumber: ROUTING, accountType: 'checking', bankName: 'Chase' },
});

export const cryptoBody = (chain = 'evm', address = EVM_ADDRESS, asset = 'USDC') => ({ kind: 'crypto', details: { chain, address, asset } });

/** A user and their token. */
export async function userWithToken(h: Harness, tenant?: TestTenant): Promise<{ userId: string; headers: Record<string, string> }> {
  const userId = await h.createUser(tenant);
  return { userId, headers: h.bearerHeaders(await h.tokenFor(userId, tenant), tenant) };
}

/** An entity created by a fresh owner; answers its id and the owner. */
export async function entityOf(h: Harness, tenant?: TestTenant, extra: Record<string, unknown> = {}) {
  const owner = await userWithToken(h, tenant);
  const res = await h.inject({ method: 'POST', url: '/entities', headers: owner.headers, payload: entityBody(extra) });
  if (res.statusCode !== 201) throw new Error(`entity not created: ${res.statusCode} ${res.body}`);
  return { entityId: res.json().id as string, owner };
}

/** Adds a member with exactly these permissions (through the API, as the owner). */
export async function memberWith(h: Harness, entityId: string, ownerHeaders: Record<string, string>, permissions: string[], tenant?: TestTenant) {
  const member = await userWithToken(h, tenant);
  const res = await h.inject({ method: 'POST', url: `/entities/${entityId}/users`, headers: ownerHeaders, payload: { userId: member.userId, permissions } });
  if (res.statusCode !== 201) throw new Error(`member not added: ${res.statusCode} ${res.body}`);
  return member;
}
