import type { paths } from '../../clients/typescript/src/schema.js';
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

export type EntityInput = paths['/entities']['post']['requestBody']['content']['application/json'];

/** A well-formed entity body, typed by the OpenAPI document (for the typed client). */
export const validEntity = (extra: Partial<EntityInput> = {}): EntityInput => ({
  legalName: 'Acme Holdings LLC',
  type: 'company',
  jurisdiction: 'US',
  registrationNumber: 'DE-1234567',
  address: { line1: '1 Main Street', city: 'Wilmington', region: 'DE', postalCode: '19801', country: 'US' },
  metadata: { sector: 'real-estate' },
  ...extra,
});

/** The same body with any override, well-formed or not (error tests send bad fields on purpose). */
export const entityBody = (extra: Record<string, unknown> = {}) => ({ ...validEntity(), ...extra });

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
export async function entityOf(h: Harness, tenant?: TestTenant, extra: Partial<EntityInput> = {}) {
  const owner = await userWithToken(h, tenant);
  const { data, error, response } = await h.api(owner.headers).POST('/entities', { body: validEntity(extra) });
  if (!data) throw new Error(`entity not created: ${response.status} ${JSON.stringify(error)}`);
  return { entityId: data.id, owner };
}

/** Adds a member with exactly these permissions (through the API, as the owner). */
type Permission = NonNullable<paths['/entities/{id}/users']['post']['requestBody']>['content']['application/json']['permissions'];

export async function memberWith(h: Harness, entityId: string, ownerHeaders: Record<string, string>, permissions: NonNullable<Permission>, tenant?: TestTenant) {
  const member = await userWithToken(h, tenant);
  const { data, error, response } = await h.api(ownerHeaders).POST('/entities/{id}/users', { params: { path: { id: entityId } }, body: { userId: member.userId, permissions } });
  if (!data) throw new Error(`member not added: ${response.status} ${JSON.stringify(error)}`);
  return member;
}
