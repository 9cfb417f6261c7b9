import type { BastionClient } from '@bastion/client';
import { need } from '../api.ts';
import { Link } from '../router.tsx';
import { Empty, Facts, Mono, PageTitle, Show, Status, useLoad, When } from '../ui.tsx';
import { AccreditationTable, KycTable } from './Queue.tsx';
import { Documents } from './Documents.tsx';

/** Everything about one user, each part from its own API route (as the admin). */
export function UserDetail({ userId }: { userId: string }) {
  const profile = useLoad(async (client) => need(await client.GET('/users/{id}', { params: { path: { id: userId } } })), userId);
  return (
    <>
      <p className="crumbs">
        <Link to="/users">Users</Link> / User
      </p>
      <Show loaded={profile} label="the user">
        {(u) => (
          <>
            <PageTitle>{u.fullName ? `${u.fullName} (${u.email})` : u.email}</PageTitle>
            <section aria-labelledby="profile">
              <h2 id="profile">Profile</h2>
              <Facts
                items={[
                  ['User id', <Mono key="id">{u.id}</Mono>],
                  ['Email', `${u.email}${u.emailVerified ? ' (verified)' : ' (not verified)'}`],
                  ['Name', u.fullName],
                  ['Phone', u.phone],
                  ['Role', u.role],
                  ['KYC', <Status key="k" value={u.kycStatus} />],
                  ['EVM address', u.walletAddresses.evm ? <Mono key="e">{u.walletAddresses.evm}</Mono> : null],
                  ['EVM-compatible address', u.walletAddresses.evmCompatible ? <Mono key="ec">{u.walletAddresses.evmCompatible}</Mono> : null],
                  ['XRPL address', u.walletAddresses.xrpl ? <Mono key="x">{u.walletAddresses.xrpl}</Mono> : null],
                  ['Created', <When key="c" at={u.createdAt} />],
                ]}
              />
            </section>
            <UserParts userId={u.id} />
          </>
        )}
      </Show>
    </>
  );
}

function UserParts({ userId }: { userId: string }) {
  const kyc = useLoad(async (client) => need(await client.GET('/kyc', { params: { query: { userId, limit: 100, offset: 0 } } })), `kyc-${userId}`);
  const accreditations = useLoad(async (client) => need(await client.GET('/accreditations', { params: { query: { userId, limit: 100, offset: 0 } } })), `acc-${userId}`);
  const wallets = useLoad((client) => walletsOf(client, userId), `wallets-${userId}`);
  const entities = useLoad(async (client) => need(await client.GET('/entities', { params: { query: { userId, limit: 100, offset: 0 } } })), `ent-${userId}`);
  const sessions = useLoad(async (client) => need(await client.GET('/auth/sessions', { params: { query: { userId } } })), `ses-${userId}`);
  return (
    <>
      <section aria-labelledby="kyc-history">
        <h2 id="kyc-history">KYC history</h2>
        <Show loaded={kyc} label="KYC history">
          {(page) => (page.data.length === 0 ? <Empty>No KYC attempts.</Empty> : <KycTable rows={page.data} caption={`${page.total} ${page.total === 1 ? 'attempt' : 'attempts'}, newest first`} />)}
        </Show>
      </section>
      <section aria-labelledby="accreditations">
        <h2 id="accreditations">Accreditations</h2>
        <Show loaded={accreditations} label="accreditations">
          {(page) => (page.data.length === 0 ? <Empty>No accreditation claims.</Empty> : <AccreditationTable rows={page.data} caption={`${page.total} ${page.total === 1 ? 'claim' : 'claims'}, newest first`} />)}
        </Show>
      </section>
      <section aria-labelledby="wallets">
        <h2 id="wallets">Wallets</h2>
        <Show loaded={wallets} label="wallets">
          {(rows) =>
            rows.length === 0 ? (
              <Empty>No wallets.</Empty>
            ) : (
              <table>
                <thead>
                  <tr>
                    <th scope="col">Kind</th>
                    <th scope="col">Network</th>
                    <th scope="col">Address</th>
                    <th scope="col">Registered</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((w) => (
                    <tr key={w.walletId}>
                      <td>{w.kind}</td>
                      <td>{w.network}</td>
                      <td>
                        <Mono>{w.address}</Mono>
                      </td>
                      <td>
                        <When at={w.createdAt} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )
          }
        </Show>
      </section>
      <section aria-labelledby="entities">
        <h2 id="entities">Entities</h2>
        <Show loaded={entities} label="entities">
          {(page) =>
            page.data.length === 0 ? (
              <Empty>Member of no entity.</Empty>
            ) : (
              <ul>
                {page.data.map((e) => (
                  <li key={e.id}>
                    {e.legalName} <span className="muted">({e.jurisdiction}, {e.registrationNumber})</span> — permissions: {e.permissions.join(', ') || 'none'}
                  </li>
                ))}
              </ul>
            )
          }
        </Show>
      </section>
      <section aria-labelledby="documents">
        <h2 id="documents">Documents</h2>
        <Documents userId={userId} />
      </section>
      <section aria-labelledby="sessions">
        <h2 id="sessions">Sessions</h2>
        <Show loaded={sessions} label="sessions">
          {(page) =>
            page.data.length === 0 ? (
              <Empty>No open sessions.</Empty>
            ) : (
              <table>
                <thead>
                  <tr>
                    <th scope="col">Started</th>
                    <th scope="col">Last used</th>
                    <th scope="col">Address</th>
                    <th scope="col">Browser</th>
                    <th scope="col">Started by</th>
                  </tr>
                </thead>
                <tbody>
                  {page.data.map((s) => (
                    <tr key={s.id}>
                      <td>
                        <When at={s.createdAt} />
                      </td>
                      <td>
                        <When at={s.lastUsedAt} />
                      </td>
                      <td>{s.ip ?? '—'}</td>
                      <td className="clip">{s.userAgent ?? '—'}</td>
                      <td>{s.startedBy ?? 'a sign-in'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )
          }
        </Show>
      </section>
    </>
  );
}

/** Wallets of every kind the API lists for a user: EVM EOAs, secure XRPL accounts, non-custodial XRPL wallets. */
async function walletsOf(client: BastionClient, userId: string) {
  const [eoas, secure, xrpl] = await Promise.all([
    client.GET('/evm-eoas', { params: { query: { userId, limit: 100, offset: 0 } } }).then(need),
    client.GET('/xrpl-secure-accounts', { params: { query: { userId, limit: 100, offset: 0 } } }).then(need),
    client.GET('/non-custodian-xrpl/wallets', { params: { query: { userId } } }).then(need),
  ]);
  const all = [...eoas.data, ...secure.data, ...[xrpl.investor, xrpl.signer].filter((w) => w !== null), ...xrpl.cold, ...xrpl.secure];
  return [...new Map(all.map((w) => [w.walletId, w])).values()];
}
