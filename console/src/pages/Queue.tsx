import type { Accreditation, BusinessProfile, KycSummary } from '@bastion/client';
import { need, shortId } from '../api.ts';
import { Link } from '../router.tsx';
import { Empty, Mono, PageTitle, Show, Status, useLoad, When } from '../ui.tsx';

/**
 * KYC attempts that wait for a person's decision: any provider's in review or submitted, and a
 * manual record (POST /kyc/kyc with provider `manual`) from its creation, as no provider decides it.
 */
const AWAITING_KYC = [{ status: 'review' }, { status: 'submitted' }, { status: 'created', provider: 'manual' }, { status: 'started', provider: 'manual' }] as const;

/**
 * The review queue: KYC attempts and accreditation claims awaiting a decision, oldest first.
 * KYC: GET /kyc/kycs per awaiting status (newest first there, merged and turned around here);
 * accreditations: GET /accreditations/pending (oldest first).
 */
export function Queue() {
  const kyc = useLoad(async (client) => {
    const pages = await Promise.all(AWAITING_KYC.map(async (filter) => need(await client.GET('/kyc/kycs', { params: { query: { ...filter, limit: 100, offset: 0 } } }))));
    const rows: KycSummary[] = pages.flatMap((p) => p.data);
    return { total: pages.reduce((n, p) => n + p.total, 0), rows: rows.sort((a, b) => a.createdAt.localeCompare(b.createdAt)) };
  }, 'kyc');
  const accreditations = useLoad(async (client) => need(await client.GET('/accreditations/pending', { params: { query: { limit: 100, offset: 0 } } })), 'accreditations');
  const profiles = useLoad(async (client) => {
    const page = need(await client.GET('/business-profiles/pending', { params: { query: { limit: 100, offset: 0 } } }));
    // The entities' names, each read as the admin (GET /entities/{id}).
    const names = new Map<string, string>();
    await Promise.all(
      [...new Set(page.data.map((p) => p.entityId))].map(async (id) => {
        const entity = await client.GET('/entities/{id}', { params: { path: { id } } });
        if (entity.data) names.set(id, entity.data.legalName);
      }),
    );
    return { ...page, names };
  }, 'profiles');

  return (
    <>
      <PageTitle>Review queue</PageTitle>
      <section aria-labelledby="kyc-queue">
        <h2 id="kyc-queue">KYC attempts awaiting a decision</h2>
        <Show loaded={kyc} label="KYC attempts">
          {({ rows, total }) =>
            rows.length === 0 ? (
              <Empty>No KYC attempt awaits a decision.</Empty>
            ) : (
              <KycTable rows={rows} caption={`${total} awaiting, oldest first${total > rows.length ? ` (the first ${rows.length})` : ''}`} />
            )
          }
        </Show>
      </section>
      <section aria-labelledby="accreditation-queue">
        <h2 id="accreditation-queue">Accreditation claims awaiting a decision</h2>
        <Show loaded={accreditations} label="accreditation claims">
          {({ data, total }) =>
            data.length === 0 ? <Empty>No accreditation claim awaits a decision.</Empty> : <AccreditationTable rows={data} caption={`${total} pending, oldest first`} />
          }
        </Show>
      </section>
      <section aria-labelledby="profile-queue">
        <h2 id="profile-queue">Business profiles awaiting the provider</h2>
        <p className="muted">The business-profile provider decides these (its review tasks below); the console follows them.</p>
        <Show loaded={profiles} label="business profiles">
          {({ data, total, names }) =>
            data.length === 0 ? <Empty>No business profile awaits a decision.</Empty> : <ProfileTable rows={data} names={names} caption={`${total} awaiting, oldest first`} />
          }
        </Show>
      </section>
    </>
  );
}

export function KycTable({ rows, caption }: { rows: KycSummary[]; caption: string }) {
  return (
    <table>
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Attempt</th>
          <th scope="col">Status</th>
          <th scope="col">Provider</th>
          <th scope="col">Name</th>
          <th scope="col">Country</th>
          <th scope="col">User</th>
          <th scope="col">Created</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((k) => (
          <tr key={k.kycId}>
            <td>
              <Link to={`/kyc/${k.kycId}`}>Open attempt {shortId(k.kycId)}</Link>
            </td>
            <td>
              <Status value={k.status} />
            </td>
            <td>{k.provider}</td>
            <td>{[k.firstName, k.lastName].filter(Boolean).join(' ') || <span className="muted">—</span>}</td>
            <td>{k.country ?? <span className="muted">—</span>}</td>
            <td>
              <Link to={`/users/${k.userId}`}>
                <Mono>{shortId(k.userId)}</Mono>
              </Link>
            </td>
            <td>
              <When at={k.createdAt} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function AccreditationTable({ rows, caption }: { rows: Accreditation[]; caption: string }) {
  return (
    <table>
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Claim</th>
          <th scope="col">Status</th>
          <th scope="col">Type</th>
          <th scope="col">Documents</th>
          <th scope="col">User</th>
          <th scope="col">Submitted</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((a) => (
          <tr key={a.id}>
            <td>
              <Link to={`/accreditations/${a.id}?user=${a.userId}`}>Open claim {shortId(a.id)}</Link>
            </td>
            <td>
              <Status value={a.status} />
            </td>
            <td>{a.type.replace(/_/g, ' ')}</td>
            <td>{a.documentIds.length}</td>
            <td>
              <Link to={`/users/${a.userId}`}>
                <Mono>{shortId(a.userId)}</Mono>
              </Link>
            </td>
            <td>
              <When at={a.createdAt} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function ProfileTable({ rows, names, caption }: { rows: BusinessProfile[]; names: Map<string, string>; caption: string }) {
  return (
    <table>
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Entity</th>
          <th scope="col">Status</th>
          <th scope="col">Review tasks</th>
          <th scope="col">TIN</th>
          <th scope="col">Submitted</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((p) => (
          <tr key={p.id}>
            <td>{names.get(p.entityId) ?? <Mono>{shortId(p.entityId)}</Mono>}</td>
            <td>
              <Status value={p.status} />
            </td>
            <td>
              {p.tasks.length === 0 ? (
                <span className="muted">none yet</span>
              ) : (
                <ul className="tasks">
                  {p.tasks.map((t) => (
                    <li key={t.key}>
                      <Status value={t.status} /> {t.label}: {t.message}
                    </li>
                  ))}
                </ul>
              )}
            </td>
            <td>
              <Mono>{p.tin}</Mono>
            </td>
            <td>
              <When at={p.createdAt} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
