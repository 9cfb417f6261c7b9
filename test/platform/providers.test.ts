import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowReadTemplate } from '../../src/platform/db/write-together.js';
import { users, type UserRow } from '../../src/modules/users/table.js';
import { defineProvider, type AdapterConfig } from '../../src/platform/providers/define.js';
import { ProviderError, providerErrorAnswer } from '../../src/platform/providers/errors.js';
import { createHarness, usingPostgres, type Harness } from '../helpers/harness.js';

// A kind of this test's own, typed as every kind is: by its port.
interface EchoPort {
  whoAmI(): Promise<AdapterConfig>;
  fail(reason: 'unreachable' | 'refused'): Promise<never>;
}
declare module '../../src/platform/providers/define.js' {
  interface ProviderPorts {
    'test-echo': EchoPort;
    'test-bare': EchoPort;
  }
}

let h: Harness;
const built: AdapterConfig[] = [];
const adapter = (config: AdapterConfig): EchoPort => {
  built.push(config);
  return {
    whoAmI: async () => config,
    fail: async (reason) => {
      throw new ProviderError(reason, `echo ${reason}`);
    },
  };
};

beforeAll(async () => {
  h = await createHarness();
  h.container.platform.providers.register([
    defineProvider({
      kind: 'test-echo',
      name: 'echo-a',
      description: 'a provider of this test, with a sandbox',
      settings: { account: { required: true, description: 'the account' } },
      secrets: {},
      adapter,
      webhooks: { verify: (request) => request.headers['x-ok'] === 'yes', id: (payload) => String((payload as { id: string }).id) },
      sandbox: { config: async (tenantId) => ({ baseUrl: 'http://sandbox.invalid', settings: { account: `sandbox-${tenantId}` }, secrets: {} }) },
      codes: { unreachable: 'ECHO_UNAVAILABLE' },
    }),
    defineProvider({ kind: 'test-bare', name: 'bare', description: 'a provider without a sandbox', settings: {}, secrets: {}, adapter }),
  ]);
});
afterAll(async () => h.close());

describe('platform.providers', () => {
  it('builds the adapter once per tenant per settings version: the sandbox first, the real provider after configure, the sandbox again after use-sandbox', async () => {
    const { providers, providerSettings } = h.container.platform;
    const tenant = (await h.newTenant()).tenantId;
    const before = built.length;
    expect(await (await providers.port(tenant, 'test-echo')).whoAmI()).toMatchObject({ sandbox: true, settings: { account: `sandbox-${tenant}` } });
    await providers.port(tenant, 'test-echo');
    expect(built.length).toBe(before + 1);

    await providerSettings.configure(tenant, 'test-echo', 'echo-a', { baseUrl: 'https://echo.example', settings: { account: 'real' }, secrets: {} });
    expect(await (await providers.port(tenant, 'test-echo')).whoAmI()).toMatchObject({ sandbox: false, baseUrl: 'https://echo.example', settings: { account: 'real' } });
    await providerSettings.configure(tenant, 'test-echo', 'echo-a', { baseUrl: 'https://echo.example', settings: { account: 'second' }, secrets: {} });
    expect((await (await providers.port(tenant, 'test-echo')).whoAmI()).settings.account).toBe('second');
    await providers.port(tenant, 'test-echo');
    expect(built.length).toBe(before + 3);

    await providerSettings.useSandbox(tenant, 'test-echo', 'echo-a');
    expect((await (await providers.port(tenant, 'test-echo')).whoAmI()).sandbox).toBe(true);
    expect(built.length).toBe(before + 4);
  });

  it('a kind with no configuration and no sandbox is 503 PROVIDER_NOT_CONFIGURED naming the kind', async () => {
    const error = await h.container.platform.providers.port(h.tenant.tenantId, 'test-bare').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    const answer = providerErrorAnswer(error as ProviderError);
    expect(answer).toMatchObject({ statusCode: 503, code: 'PROVIDER_NOT_CONFIGURED', headers: { 'retry-after': '60' } });
    expect(answer.message).toContain('test-bare');
  });

  it('an error leaving the port is tagged with its kind and the definition code, and has one status per reason', async () => {
    const port = await h.container.platform.providers.port(h.tenant.tenantId, 'test-echo');
    const down = (await port.fail('unreachable').catch((e: unknown) => e)) as ProviderError;
    expect(down).toMatchObject({ kind: 'test-echo', provider: 'echo-a', code: 'ECHO_UNAVAILABLE' });
    expect(providerErrorAnswer(down)).toMatchObject({ statusCode: 503, code: 'ECHO_UNAVAILABLE' });
    const refused = (await port.fail('refused').catch((e: unknown) => e)) as ProviderError;
    expect(providerErrorAnswer(refused)).toMatchObject({ statusCode: 502, code: 'PROVIDER_REFUSED' });
  });

  it('webhooks: the definition verifies; one event id is applied once, and again only after a failed apply', async () => {
    const { providers } = h.container.platform;
    const tenantId = h.tenant.tenantId;
    const request = (ok: string) => ({ tenantId, rawBody: '{"id":"evt-1"}', headers: { 'x-ok': ok } });
    await expect(providers.verifyWebhook(tenantId, 'test-echo', request('no'))).rejects.toMatchObject({ statusCode: 401, code: 'WEBHOOK_SIGNATURE_INVALID' });
    await providers.verifyWebhook(tenantId, 'test-echo', request('yes'));

    let applied = 0;
    const apply = async () => {
      applied++;
    };
    const failing = async () => {
      throw new Error('not yet');
    };
    await expect(providers.once(tenantId, 'test-echo', { id: 'evt-1' }, request('yes'), failing)).rejects.toThrow('not yet');
    expect(await providers.once(tenantId, 'test-echo', { id: 'evt-1' }, request('yes'), apply)).toBe('applied');
    expect(await providers.once(tenantId, 'test-echo', { id: 'evt-1' }, request('yes'), apply)).toBe('duplicate');
    expect(await providers.once(tenantId, 'test-echo', { id: 'evt-2' }, request('yes'), apply)).toBe('applied');
    expect(applied).toBe(2);
  });

  it('webhooks with a first read: the row is read, locked, in the claim\'s statement and handed to apply; a duplicate reads nothing into apply', async () => {
    const { providers } = h.container.platform;
    const tenantId = h.tenant.tenantId;
    const userId = await h.createUser();
    const request = { tenantId, rawBody: '{"id":"evt-first"}', headers: { 'x-ok': 'yes' } };
    const userRead = rowReadTemplate<typeof users, 'tenantId' | 'id'>(users, (q, value) =>
      q.select().from(users).where(and(eq(users.tenantId, value('tenantId')), eq(users.id, value('id')))).for('update'),
    );
    const seen: Array<UserRow | undefined> = [];
    const apply = async (db: Parameters<Parameters<typeof providers.once>[4]>[0], row: UserRow | undefined) => {
      seen.push(row);
      if (row && usingPostgres) {
        // Locked by the claim's statement: another connection cannot take the row meanwhile.
        await expect(h.database.db.execute(sql`select 1 from users where tenant_id = ${tenantId} and id = ${userId} for update nowait`)).rejects.toMatchObject({ cause: { code: '55P03' } });
      }
      void db;
    };
    const read = (id: string) => userRead(h.database.db, { tenantId, id });
    await expect(providers.once(tenantId, 'test-echo', { id: 'evt-first' }, request, async () => Promise.reject(new Error('not yet')), undefined, read(userId))).rejects.toThrow('not yet');
    expect(await providers.once(tenantId, 'test-echo', { id: 'evt-first' }, request, apply, undefined, read(userId))).toBe('applied');
    expect(await providers.once(tenantId, 'test-echo', { id: 'evt-first' }, request, apply, undefined, read(userId))).toBe('duplicate');
    // A read that finds no row hands apply undefined; the delivery is still claimed once.
    expect(await providers.once(tenantId, 'test-echo', { id: 'evt-none' }, request, apply, undefined, read('01a22345-5f31-742a-a890-fcdb80895b99'))).toBe('applied');
    expect(await providers.once(tenantId, 'test-echo', { id: 'evt-none' }, request, apply, undefined, read(userId))).toBe('duplicate');
    expect(seen.length).toBe(2);
    // The row as drizzle's own select maps it: the same keys, dates as dates, nulls as nulls.
    const [direct] = await h.database.db.select().from(users).where(and(eq(users.tenantId, tenantId), eq(users.id, userId)));
    expect(seen[0]).toEqual(direct);
    expect(seen[0]?.createdAt).toBeInstanceOf(Date);
    expect(seen[1]).toBeUndefined();
  });
});
