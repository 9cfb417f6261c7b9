import { useState, type FormEvent } from 'react';
import type { AdminTransfer } from '@bastion/client';
import { need, shortId } from '../api.ts';
import { Link, navigate, useQuery } from '../router.tsx';
import { Empty, Facts, Mono, PageTitle, Show, Status, useLoad, When, Pager } from '../ui.tsx';

const PAGE = 50;
const STATUSES = ['QUEUED', 'IN_PROGRESS', 'COMPLETED', 'FAILED'];

/**
 * A chain hash. The service names no block explorer (neither GET /ready nor its configuration
 * has one, and the local chain has no web page), so the hash is shown as text to copy.
 */
function ChainHash({ hash }: { hash: string | null | undefined }) {
  if (!hash) return <span className="muted">not yet</span>;
  return <Mono>{hash}</Mono>;
}

/** The tenant's transfers (GET /custody-a/transfers), newest first, filtered by status and user. */
export function Transfers() {
  const query = useQuery();
  const filters = { status: query.get('status') ?? '', userId: query.get('userId') ?? '' };
  const offset = Number(query.get('offset') ?? 0) || 0;
  const [form, setForm] = useState(filters);
  const transfers = useLoad(async (client) => {
    const q: { limit: number; offset: number; status?: string; userId?: string } = { limit: PAGE, offset };
    if (filters.status) q.status = filters.status;
    if (filters.userId) q.userId = filters.userId;
    return need(await client.GET('/custody-a/transfers', { params: { query: q } }));
  }, query.toString());
  const go = (next: typeof filters, at = 0) => {
    const params = new URLSearchParams(Object.entries(next).filter(([, v]) => v));
    if (at) params.set('offset', String(at));
    navigate(`/transfers${params.size ? `?${params}` : ''}`);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    go(form);
  };
  return (
    <>
      <PageTitle>Transfers</PageTitle>
      <form className="filters" onSubmit={submit} aria-label="Filter the transfers">
        <div>
          <label htmlFor="t-status">Status</label>
          <select id="t-status" value={form.status} onChange={(e) => setForm({ ...form, status: e.target.value })}>
            <option value="">any</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s.replace(/_/g, ' ').toLowerCase()}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="t-user">User id</label>
          <input id="t-user" value={form.userId} onChange={(e) => setForm({ ...form, userId: e.target.value.trim() })} spellCheck={false} />
        </div>
        <button type="submit">Filter</button>
      </form>
      <Show loaded={transfers} label="transfers">
        {(page) =>
          page.data.length === 0 ? (
            <Empty>No transfers match.</Empty>
          ) : (
            <>
              <table>
                <caption>
                  {page.total} transfers, newest first; {offset + 1}–{offset + page.data.length}
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Transfer</th>
                    <th scope="col">Status</th>
                    <th scope="col">Amount</th>
                    <th scope="col">Asset</th>
                    <th scope="col">User</th>
                    <th scope="col">Chain hash</th>
                    <th scope="col">Created</th>
                  </tr>
                </thead>
                <tbody>
                  {page.data.map((t) => (
                    <tr key={t.id}>
                      <td>
                        <Link to={`/transfers/${t.id}`}>Open transfer {shortId(t.id)}</Link>
                      </td>
                      <td>
                        <Status value={t.status} />
                      </td>
                      <td>{t.amount}</td>
                      <td>{t.assetType}</td>
                      <td>
                        <Link to={`/users/${t.userId}`}>
                          <Mono>{shortId(t.userId)}</Mono>
                        </Link>
                      </td>
                      <td className="details">
                        <ChainHash hash={t.hash} />
                      </td>
                      <td>
                        <When at={t.createdAt} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <Pager offset={offset} shown={page.data.length} total={page.total} pageSize={PAGE} go={(at) => go(filters, at)} />
            </>
          )
        }
      </Show>
    </>
  );
}

/** One transfer as stored (GET /custody-a/transfers/{id}) and its recorded statuses. */
export function TransferDetail({ id }: { id: string }) {
  const transfer = useLoad(async (client) => need(await client.GET('/custody-a/transfers/{id}', { params: { path: { id } } })), id);
  return (
    <>
      <p className="crumbs">
        <Link to="/transfers">Transfers</Link> / Transfer
      </p>
      <Show loaded={transfer} label="the transfer">
        {(t: AdminTransfer) => (
          <>
            <PageTitle>
              Transfer {shortId(t.id)}: {t.amount} {t.assetType}
            </PageTitle>
            <section aria-labelledby="transfer-facts">
              <h2 id="transfer-facts">Transfer</h2>
              <Facts
                items={[
                  ['Transfer id', <Mono key="id">{t.id}</Mono>],
                  ['Status', <Status key="s" value={t.status} />],
                  ['Amount', `${t.amount} ${t.assetType}`],
                  ['User', <Link key="u" to={`/users/${t.userId}`}><Mono>{t.userId}</Mono></Link>],
                  ['Provider', t.provider],
                  ['Provider transfer id', <Mono key="p">{t.providerTransferId}</Mono>],
                  ['Source wallet', <Mono key="src">{t.sourceId}</Mono>],
                  ['Destination', <Mono key="d">{t.destinationId}</Mono>],
                  ['Chain hash', <ChainHash key="h" hash={t.hash} />],
                  ['Failure', t.failureReason],
                  ['Memo', t.transferMemo],
                  ['Travel-rule data', t.hasQuestionnaire ? 'given (sealed; GET /non-custodial-evm/transfers/{id} shows it)' : 'none'],
                  ['Created', <When key="c" at={t.createdAt} />],
                  ['Updated', <When key="up" at={t.updatedAt} />],
                ]}
              />
            </section>
            <section aria-labelledby="transfer-history">
              <h2 id="transfer-history">Status history</h2>
              {t.history.length === 0 ? (
                <Empty>No recorded statuses: this transfer was made before they were kept. Its current status is above.</Empty>
              ) : (
                <ol className="history">
                  {t.history.map((s, i) => (
                    <li key={`${s.at}-${i}`}>
                      <When at={s.at} /> <Status value={s.status} />{' '}
                      <span className="muted">
                        by {s.actor.type}
                        {s.actor.id ? ` ${shortId(s.actor.id)}` : ''}
                      </span>
                      {s.hash ? (
                        <>
                          {' '}
                          <ChainHash hash={s.hash} />
                        </>
                      ) : null}
                    </li>
                  ))}
                </ol>
              )}
            </section>
          </>
        )}
      </Show>
    </>
  );
}
