import type { Accreditation, KycSummary } from '@bastion/client';
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
