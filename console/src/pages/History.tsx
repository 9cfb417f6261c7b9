import { shortId } from '../api.ts';
import { Empty, Mono, Status, When } from '../ui.tsx';

export interface Step {
  action?: string;
  from: string | null;
  to: string | null;
  changes?: Record<string, unknown> | null;
  actor: { type: string; id: string | null };
  reason: string | null;
  at: string;
}

/** A record's history (from the audit log): who moved it from what to what, when and why. */
export function History({ steps }: { steps: Step[] }) {
  if (steps.length === 0) return <Empty>No history.</Empty>;
  return (
    <ol className="history">
      {steps.map((s, i) => (
        <li key={`${s.at}-${i}`}>
          <When at={s.at} />{' '}
          {s.action === 'update' ? (
            <span>updated {s.changes ? <Mono>{Object.keys(s.changes).join(', ')}</Mono> : null}</span>
          ) : (
            <span>
              {s.from ? <Status value={s.from} /> : 'new'} → <Status value={s.to} />
            </span>
          )}{' '}
          <span className="muted">
            by {s.actor.type}
            {s.actor.id ? ` ${shortId(s.actor.id)}` : ''}
          </span>
          {s.reason && <q className="reason">{s.reason}</q>}
        </li>
      ))}
    </ol>
  );
}
