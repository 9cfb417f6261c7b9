import { useState, type FormEvent } from 'react';
import type { User } from '@bastion/client';
import { need, searchKind, type SearchKind } from '../api.ts';
import { Link, navigate, useQuery } from '../router.tsx';
import { Empty, Mono, PageTitle, Show, Status, useLoad, When } from '../ui.tsx';

const KIND_LABEL: Record<SearchKind, string> = { id: 'user id', evm: 'EVM address', xrpl: 'XRPL address', email: 'email' };

/**
 * Find users by email, wallet address (EVM or XRPL) or id: GET /users with its `email`,
 * `evmEoa` or `xrplSecureAccountAddress` filter, or GET /users/{id}. The search is in the
 * address (`?q=`), so a result can be linked and the back button returns to it.
 */
export function Users() {
  const q = useQuery().get('q') ?? '';
  const [text, setText] = useState(q);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    navigate(`/users?q=${encodeURIComponent(text.trim())}`);
  };
  return (
    <>
      <PageTitle>Users</PageTitle>
      <form role="search" onSubmit={submit} className="search">
        <label htmlFor="user-search">Email, wallet address (EVM or XRPL) or user id</label>
        <div className="row">
          <input id="user-search" type="search" value={text} onChange={(e) => setText(e.target.value)} placeholder="ada@example.com, 0x…, r…, or an id" spellCheck={false} />
          <button type="submit">Search</button>
        </div>
      </form>
      {q ? <Results q={q} /> : <Recent />}
    </>
  );
}

function Results({ q }: { q: string }) {
  const kind = searchKind(q);
  const found = useLoad(async (client) => {
    if (kind === 'id') {
      const res = await client.GET('/users/{id}', { params: { path: { id: q } } });
      if (res.response.status === 404) return [];
      return [need(res) as User];
    }
    const filter = kind === 'evm' ? { evmEoa: q } : kind === 'xrpl' ? { xrplSecureAccountAddress: q } : { email: q };
    return need(await client.GET('/users', { params: { query: { limit: 50, offset: 0, ...filter } } })).data;
  }, q);
  return (
    <section aria-labelledby="results" aria-live="polite">
      <h2 id="results">
        Users by {KIND_LABEL[kind]} <Mono>{q}</Mono>
      </h2>
      <Show loaded={found} label="users">
        {(users) => (users.length === 0 ? <Empty>No user matches.</Empty> : <UserTable users={users} />)}
      </Show>
    </section>
  );
}

function Recent() {
  const recent = useLoad(async (client) => need(await client.GET('/users', { params: { query: { limit: 20, offset: 0 } } })), 'recent');
  return (
    <section aria-labelledby="recent">
      <h2 id="recent">Users</h2>
      <Show loaded={recent} label="users">
        {(page) => (page.data.length === 0 ? <Empty>No users yet.</Empty> : <UserTable users={page.data} caption={`${page.total} in all; the first ${page.data.length}`} />)}
      </Show>
    </section>
  );
}

function UserTable({ users, caption }: { users: User[]; caption?: string }) {
  return (
    <table>
      {caption && <caption>{caption}</caption>}
      <thead>
        <tr>
          <th scope="col">Email</th>
          <th scope="col">Name</th>
          <th scope="col">Role</th>
          <th scope="col">KYC</th>
          <th scope="col">EVM address</th>
          <th scope="col">XRPL address</th>
          <th scope="col">Created</th>
        </tr>
      </thead>
      <tbody>
        {users.map((u) => (
          <tr key={u.id}>
            <td>
              <Link to={`/users/${u.id}`}>{u.email}</Link>
            </td>
            <td>{u.fullName ?? <span className="muted">—</span>}</td>
            <td>{u.role}</td>
            <td>
              <Status value={u.kycStatus} />
            </td>
            <td>{u.evmEoa ? <Mono>{u.evmEoa}</Mono> : <span className="muted">—</span>}</td>
            <td>{u.xrplSecureAccountAddress ? <Mono>{u.xrplSecureAccountAddress}</Mono> : <span className="muted">—</span>}</td>
            <td>
              <When at={u.createdAt} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
