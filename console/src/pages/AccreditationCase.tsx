import { useState, type FormEvent } from 'react';
import type { Accreditation } from '@bastion/client';
import { ApiError, need } from '../api.ts';
import { Link, useQuery } from '../router.tsx';
import { ErrorNote, Facts, Mono, PageTitle, Show, Status, useConsole, useLoad, When } from '../ui.tsx';
import { Documents } from './Documents.tsx';
import { History } from './History.tsx';

/**
 * One accreditation claim: read from the user's claims (GET /accreditations?userId=; the queue
 * links here with the user), decided with POST /accreditations/{id}/decision.
 */
export function AccreditationCase({ id }: { id: string }) {
  const userId = useQuery().get('user') ?? '';
  const claim = useLoad(async (client) => {
    const page = need(await client.GET('/accreditations', { params: { query: { userId, limit: 100, offset: 0 } } }));
    const found = page.data.find((a) => a.id === id);
    if (!found) throw new Error('This claim is not among the user’s claims');
    return found;
  }, `${id}-${userId}`);
  return (
    <Show loaded={claim} label="the accreditation claim">
      {(a) => <ClaimView claim={a} reload={claim.reload} />}
    </Show>
  );
}

function ClaimView({ claim: a, reload }: { claim: Accreditation; reload: () => void }) {
  return (
    <>
      <p className="crumbs">
        <Link to="/">Review queue</Link> / Accreditation claim
      </p>
      <PageTitle>
        Accreditation claim ({a.type.replace(/_/g, ' ')}) <Status value={a.status} />
      </PageTitle>
      <div className="columns">
        <section aria-labelledby="claim-data">
          <h2 id="claim-data">Claim</h2>
          <Facts
            items={[
              ['Claim', <Mono key="id">{a.id}</Mono>],
              ['User', <Link key="u" to={`/users/${a.userId}`}>{a.userId}</Link>],
              ['Type', a.type.replace(/_/g, ' ')],
              ['Notes', a.notes],
              ['Reason', a.reason],
              ['Submitted', <When key="c" at={a.createdAt} />],
              ['Decided', <When key="d" at={a.decidedAt} />],
            ]}
          />
        </section>
        <section aria-labelledby="claim-decide">
          <h2 id="claim-decide">Decision</h2>
          {a.status === 'pending' ? <Decide id={a.id} onDone={reload} /> : <p>This claim is {a.status}: a claim is decided once.</p>}
        </section>
      </div>
      <section aria-labelledby="claim-history">
        <h2 id="claim-history">History</h2>
        <History steps={a.history} />
      </section>
      <section aria-labelledby="claim-docs">
        <h2 id="claim-docs">Supporting documents</h2>
        <Documents userId={a.userId} only={a.documentIds} />
      </section>
    </>
  );
}

function Decide({ id, onDone }: { id: string; onDone: () => void }) {
  const { client } = useConsole();
  const [decision, setDecision] = useState<'approved' | 'rejected'>('approved');
  const [reason, setReason] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    const res = await client.POST('/accreditations/{id}/decision', { params: { path: { id } }, body: { decision, ...(reason.trim() ? { reason: reason.trim() } : {}) } });
    setBusy(false);
    if (res.error || !res.data) return setError(new ApiError(res.response.status, res.error));
    onDone();
  };
  return (
    <form onSubmit={(e) => void submit(e)} aria-label="Decide the accreditation claim">
      <fieldset>
        <legend>Decision</legend>
        <label className="radio">
          <input type="radio" name="decision" value="approved" checked={decision === 'approved'} onChange={() => setDecision('approved')} /> Approve
        </label>
        <label className="radio">
          <input type="radio" name="decision" value="rejected" checked={decision === 'rejected'} onChange={() => setDecision('rejected')} /> Reject
        </label>
      </fieldset>
      <label htmlFor="claim-reason">Reason (optional)</label>
      <textarea id="claim-reason" maxLength={1000} rows={3} value={reason} onChange={(e) => setReason(e.target.value)} />
      <button type="submit" disabled={busy} className={decision === 'approved' ? '' : 'danger'}>
        {decision === 'approved' ? 'Approve' : 'Reject'}
      </button>
      {error !== undefined && <ErrorNote error={error} />}
    </form>
  );
}
