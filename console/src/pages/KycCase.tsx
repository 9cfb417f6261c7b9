import { useState, type FormEvent } from 'react';
import type { KycRecord } from '@bastion/client';
import { ApiError, need, shortId } from '../api.ts';
import { Link } from '../router.tsx';
import { ErrorNote, Facts, Mono, PageTitle, Show, Status, useConsole, useLoad, When } from '../ui.tsx';
import { Documents } from './Documents.tsx';
import { History } from './History.tsx';

type Action = 'approve' | 'reject' | 'request-resubmission';
const ACTIONS: Array<[Action, string]> = [
  ['approve', 'Approve'],
  ['reject', 'Reject'],
  ['request-resubmission', 'Request resubmission'],
];
/** Statuses a person may still decide from (src/modules/kyc/state.ts). */
const DECIDABLE = new Set(['created', 'started', 'submitted', 'review', 'resubmission_requested']);

/** One KYC attempt: the provider's data, its history, the user's documents, and the decision. */
export function KycCase({ kycId }: { kycId: string }) {
  const record = useLoad(async (client) => need(await client.GET('/kyc/current/{kycId}', { params: { path: { kycId } } })), kycId);
  return (
    <Show loaded={record} label="the KYC attempt">
      {(k) => <KycView record={k} reload={record.reload} />}
    </Show>
  );
}

function KycView({ record: k, reload }: { record: KycRecord; reload: () => void }) {
  const name = [k.firstName, k.lastName].filter(Boolean).join(' ');
  return (
    <>
      <p className="crumbs">
        <Link to="/">Review queue</Link> / KYC attempt
      </p>
      <PageTitle>
        KYC attempt {name ? `of ${name}` : <Mono>{shortId(k.kycId)}</Mono>} <Status value={k.status} />
      </PageTitle>
      <div className="columns">
        <section aria-labelledby="kyc-data">
          <h2 id="kyc-data">Provider decision data</h2>
          <Facts
            items={[
              ['Attempt', <Mono key="id">{k.kycId}</Mono>],
              ['User', <Link key="u" to={`/users/${k.userId}`}>{k.userId}</Link>],
              ['Provider', k.provider],
              ['Flow', k.flow],
              ['Level', k.level],
              ['First name', k.firstName],
              ['Last name', k.lastName],
              ['Date of birth', k.dateOfBirth],
              ['Country', k.country],
              ['Document type', k.documentType],
              ['Wallet', k.walletAddress ? <Mono key="w">{`${k.walletAddress} (${k.walletChain ?? 'chain unknown'}${k.walletVerified ? ', verified' : ''})`}</Mono> : null],
              ['Reason', k.reason],
              ['Created', <When key="c" at={k.createdAt} />],
              ['Expires', <When key="e" at={k.expiresAt} />],
              ['Decided', <When key="d" at={k.decidedAt} />],
            ]}
          />
        </section>
        <section aria-labelledby="kyc-decide">
          <h2 id="kyc-decide">Decision</h2>
          {DECIDABLE.has(k.status) ? <Decide kycId={k.kycId} onDone={reload} /> : <p>This attempt is {k.status.replace(/_/g, ' ')}: nothing more to decide.</p>}
        </section>
      </div>
      <section aria-labelledby="kyc-history">
        <h2 id="kyc-history">History</h2>
        <History steps={k.history} />
      </section>
      <section aria-labelledby="kyc-docs">
        <h2 id="kyc-docs">The user’s documents</h2>
        <Documents userId={k.userId} />
      </section>
    </>
  );
}

/** Approve, reject or request resubmission (PUT /kyc/{action}/{kycId}), with an optional reason. */
function Decide({ kycId, onDone }: { kycId: string; onDone: () => void }) {
  const { client } = useConsole();
  const [action, setAction] = useState<Action>('approve');
  const [reason, setReason] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    const body = reason.trim() ? { reason: reason.trim() } : {};
    const params = { path: { kycId } };
    const res =
      action === 'approve'
        ? await client.PUT('/kyc/approve/{kycId}', { params, body })
        : action === 'reject'
          ? await client.PUT('/kyc/reject/{kycId}', { params, body })
          : await client.PUT('/kyc/request-resubmission/{kycId}', { params, body });
    setBusy(false);
    if (res.error || !res.data) return setError(new ApiError(res.response.status, res.error));
    onDone();
  };
  return (
    <form onSubmit={(e) => void submit(e)} aria-label="Decide the KYC attempt">
      <fieldset>
        <legend>Decision</legend>
        {ACTIONS.map(([value, label]) => (
          <label key={value} className="radio">
            <input type="radio" name="decision" value={value} checked={action === value} onChange={() => setAction(value)} /> {label}
          </label>
        ))}
      </fieldset>
      <label htmlFor="reason">Reason (optional, shown in the history and the event)</label>
      <textarea id="reason" name="reason" maxLength={1000} rows={3} value={reason} onChange={(e) => setReason(e.target.value)} />
      <button type="submit" disabled={busy} className={action === 'approve' ? '' : 'danger'}>
        {ACTIONS.find(([v]) => v === action)![1]}
      </button>
      {error !== undefined && <ErrorNote error={error} />}
    </form>
  );
}
