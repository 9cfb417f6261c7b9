import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { expectError, routeCases } from '../helpers/security.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

// Inherently public routes: they still need a known tenant, and reject malformed bodies.
const publicRoutes: Array<{ method: 'GET' | 'POST' | 'PUT'; url: string; payload?: object }> = [
  { method: 'POST', url: '/auth/email', payload: { email: 'a@example.com', password: 'a long passphrase' } },
  { method: 'POST', url: '/auth/email/login', payload: { email: 'a@example.com', password: 'x' } },
  { method: 'POST', url: '/auth/login', payload: { email: 'a@example.com', password: 'x' } },
  { method: 'POST', url: '/auth/refresh', payload: { refreshToken: 'x' } },
  { method: 'POST', url: '/auth/email/verify-token', payload: { token: 'x' } },
  { method: 'POST', url: '/auth/email/verify-otp', payload: { email: 'a@example.com', code: '123456' } },
  { method: 'POST', url: '/auth/email/resend-verification', payload: { email: 'a@example.com' } },
  { method: 'POST', url: '/auth/email/resend-otp', payload: { email: 'a@example.com' } },
  { method: 'POST', url: '/auth/forgot-password', payload: { email: 'a@example.com' } },
  { method: 'POST', url: '/auth/forgot-password/request-otp', payload: { email: 'a@example.com' } },
  { method: 'POST', url: '/auth/forgot-password/verify-otp', payload: { email: 'a@example.com', code: '123456' } },
  { method: 'POST', url: '/auth/token-status', payload: { token: 'x' } },
  { method: 'PUT', url: '/auth/reset-password?token=x', payload: { password: 'a long passphrase' } },
  { method: 'POST', url: '/auth/2fa/verify', payload: { challengeToken: 'x', code: '123456' } },
  { method: 'GET', url: '/auth/email/verify?email=a@example.com' },
];

describe('public auth routes', () => {
  for (const route of publicRoutes) {
    it(`${route.method} ${route.url}: 401 without or with an unknown tenant; 400 on a malformed body`, async () => {
      expectError(await h.inject({ method: route.method, url: route.url, payload: route.payload }), 401, 'TENANT_REQUIRED');
      expectError(await h.inject({ method: route.method, url: route.url, headers: { 'x-tenant-id': randomUUID() }, payload: route.payload }), 401, 'TENANT_UNKNOWN');
      if (route.payload) {
        const bad = await h.inject({ method: route.method, url: route.url, headers: { 'x-tenant-id': h.tenant.tenantId }, payload: { ...route.payload, unexpected: true } });
        expectError(bad, 400, 'VALIDATION_FAILED');
        expect(bad.json().message).toContain('body.unexpected is not allowed');
      }
    });
  }
});

routeCases(() => h, 'GET /auth/2fa/status', { url: () => '/auth/2fa/status', accepts: { bearer: 'user' } });
routeCases(() => h, 'POST /auth/2fa/setup', { url: () => '/auth/2fa/setup', payload: () => ({ method: 'email' }), accepts: { bearer: 'user' } });
routeCases(() => h, 'POST /auth/2fa/enable', { url: () => '/auth/2fa/enable', payload: () => ({ code: '123456' }), accepts: { bearer: 'user' } });
routeCases(() => h, 'POST /auth/2fa/disable', { url: () => '/auth/2fa/disable', payload: () => ({ password: 'x' }), accepts: { bearer: 'user' } });
