import { useState, type FormEvent } from 'react';
import { need, shortId } from '../api.ts';
import { Link, navigate, useQuery } from '../router.tsx';
import { Empty, Mono, PageTitle, Show, useLoad, When, Pager } from '../ui.tsx';

const PAGE = 50;

/** The tenant's audit log (GET /audit-events), newest first, filtered by user, type and time. */
export function Audit() {
  const query = useQuery();
  const filters = { userId: query.get('userId') ?? '', type: query.get('type') ?? '', from: query.get('from') ?? '', to: query.get('to') ?? '' };
  const offset = Number(query.get('offset') ?? 0) || 0;
  const [form, setForm] = useState(filters);
  const key = `${query.toString()}`;
  const events = useLoad(async (client) => {
    const q: { limit: number; offset: number; userId?: string; type?: string; from?: string; to?: string } = { limit: PAGE, offset };
    if (filters.userId) q.userId = filters.userId;
    if (filters.type) q.type = filters.type;
    if (filters.from) q.from = new Date(filters.from).toISOString();
    if (filters.to) q.to = new Date(filters.to).toISOString();
    return need(await client.GET('/audit-events', { params: { query: q } }));
  }, key);
  const go = (next: typeof filters, at = 0) => {
    const params = new URLSearchParams(Object.entries(next).filter(([, v]) => v));
    if (at) params.set('offset', String(at));
    navigate(`/audit${params.size ? `?${params}` : ''}`);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    go(form);
  };
  return (
    <>
      <PageTitle>Audit log</PageTitle>
      <form className="filters" onSubmit={submit} aria-label="Filter the audit log">
        <div>
          <label htmlFor="f-user">User id</label>
          <input id="f-user" value={form.userId} onChange={(e) => setForm({ ...form, userId: e.target.value.trim() })} spellCheck={false} />
        </div>
        <div>
          <label htmlFor="f-type">Type</label>
          <input id="f-type" value={form.type} onChange={(e) => setForm({ ...form, type: e.target.value.trim() })} placeholder="e.g. kyc.transition" spellCheck={false} />
        </div>
        <div>
          <label htmlFor="f-from">From</label>
          <input id="f-from" type="datetime-local" value={form.from} onChange={(e) => setForm({ ...form, from: e.target.value })} />
        </div>
        <div>
          <label htmlFor="f-to">To</label>
          <input id="f-to" type="datetime-local" value={form.to} onChange={(e) => setForm({ ...form, to: e.target.value })} />
        </div>
        <button type="submit">Filter</button>
      </form>
      <Show loaded={events} label="audit events">
        {(page) =>
          page.data.length === 0 ? (
            <Empty>No audit events match.</Empty>
          ) : (
            <>
              <table>
                <caption>
                  {page.total} events, newest first; {offset + 1}–{offset + page.data.length}
                </caption>
                <thead>
                  <tr>
                    <th scope="col">When</th>
                    <th scope="col">Type</th>
                    <th scope="col">Actor</th>
                    <th scope="col">User</th>
                    <th scope="col">Object</th>
                    <th scope="col">Details</th>
                  </tr>
                </thead>
                <tbody>
                  {page.data.map((e) => (
                    <tr key={e.id}>
                      <td>
                        <When at={e.createdAt} />
                      </td>
                      <td>{e.type}</td>
                      <td>
                        {e.actorType}
                        {e.actorId ? <Mono> {shortId(e.actorId)}</Mono> : null}
                      </td>
                      <td>{e.subjectUserId ? <Link to={`/users/${e.subjectUserId}`}>{shortId(e.subjectUserId)}</Link> : '—'}</td>
                      <td>
                        {e.objectType ? (
                          e.objectType === 'kyc' && e.objectId ? (
                            <Link to={`/kyc/${e.objectId}`}>kyc {shortId(e.objectId)}</Link>
                          ) : (
                            `${e.objectType} ${e.objectId ? shortId(e.objectId) : ''}`
                          )
                        ) : (
                          '—'
                        )}
                      </td>
                      <td className="details">
                        <Mono>{JSON.stringify(e.details)}</Mono>
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
