import type { Harness, TestTenant } from './harness.js';

/**
 * Reads that tests make to check a state, through the typed client over HTTP with the
 * tenant's API key, as the tenant's back end would read it.
 */
export async function readUser(h: Harness, userId: string, tenant: TestTenant = h.tenant) {
  const { data, response } = await h.api(h.keyHeaders(tenant)).GET('/users/{id}', { params: { path: { id: userId } } });
  if (!data) throw new Error(`GET /users/${userId} answered ${response.status}`);
  return data;
}

export async function readKyc(h: Harness, kycId: string, tenant: TestTenant = h.tenant) {
  const { data, response } = await h.api(h.keyHeaders(tenant)).GET('/kyc/current/{kycId}', { params: { path: { kycId } } });
  if (!data) throw new Error(`GET /kyc/current/${kycId} answered ${response.status}`);
  return data;
}

/** How many users the tenant has (GET /users total). */
export async function countUsers(h: Harness, tenant: TestTenant = h.tenant): Promise<number> {
  const { data, response } = await h.api(h.keyHeaders(tenant)).GET('/users', { params: { query: { limit: 1 } } });
  if (!data) throw new Error(`GET /users answered ${response.status}`);
  return data.total;
}

/** The tenant's audit events, newest first (GET /audit-events). */
export async function auditEvents(h: Harness, query: { type?: string; userId?: string; limit?: number } = {}, tenant: TestTenant = h.tenant) {
  const { data, response } = await h.api(h.keyHeaders(tenant)).GET('/audit-events', { params: { query } });
  if (!data) throw new Error(`GET /audit-events answered ${response.status}`);
  return data;
}
