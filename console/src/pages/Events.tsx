import { useState } from 'react';
import type { EventEndpoint } from '@bastion/client';
import { need, shortId } from '../api.ts';
import { Empty, Mono, PageTitle, Show, Status, useLoad, When } from '../ui.tsx';

/** The tenant's event endpoints (GET /event-endpoints) and each one's recent deliveries. */
export function Events() {
  const endpoints = useLoad(async (client) => need(await client.GET('/event-endpoints', { params: { query: { limit: 100, offset: 0 } } })), 'endpoints');
  const [open, setOpen] = useState<string>();
  return (
    <>
      <PageTitle>Event endpoints</PageTitle>
      <Show loaded={endpoints} label="event endpoints">
        {(page) =>
          page.data.length === 0 ? (
            <Empty>No event endpoints.</Empty>
          ) : (
            <table>
              <caption>{page.total} endpoints</caption>
              <thead>
                <tr>
                  <th scope="col">URL</th>
                  <th scope="col">Events</th>
                  <th scope="col">State</th>
                  <th scope="col">Created</th>
                  <th scope="col">
                    <span className="visually-hidden">Deliveries</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {page.data.map((e) => (
                  <tr key={e.id}>
                    <td>
                      <Mono>{e.url}</Mono>
                      {e.description && <div className="muted">{e.description}</div>}
                    </td>
                    <td>{e.types.length ? e.types.join(', ') : 'all'}</td>
                    <td>{e.enabled ? <Status value="enabled" /> : <Status value={`disabled${e.disabledReason ? `: ${e.disabledReason}` : ''}`} />}</td>
                    <td>
                      <When at={e.createdAt} />
                    </td>
                    <td>
                      <button type="button" className="secondary small" aria-expanded={open === e.id} onClick={() => setOpen(open === e.id ? undefined : e.id)}>
                        Deliveries <span className="visually-hidden">to {e.url}</span>
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Show>
      {open && endpoints.data && <Deliveries endpoint={endpoints.data.data.find((e) => e.id === open)!} />}
    </>
  );
}

function Deliveries({ endpoint }: { endpoint: EventEndpoint }) {
  const deliveries = useLoad(async (client) => need(await client.GET('/event-endpoints/{id}/deliveries', { params: { path: { id: endpoint.id }, query: { limit: 50, offset: 0 } } })), endpoint.id);
  return (
    <section aria-labelledby="deliveries">
      <h2 id="deliveries">
        Recent deliveries to <Mono>{endpoint.url}</Mono>
      </h2>
      <Show loaded={deliveries} label="deliveries">
        {(page) =>
          page.data.length === 0 ? (
            <Empty>No deliveries yet.</Empty>
          ) : (
            <table>
              <caption>{page.total} deliveries, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Event</th>
                  <th scope="col">Status</th>
                  <th scope="col">Attempts</th>
                  <th scope="col">Last answer</th>
                  <th scope="col">Queued</th>
                  <th scope="col">Delivered</th>
                  <th scope="col">Next attempt</th>
                </tr>
              </thead>
              <tbody>
                {page.data.map((d) => (
                  <tr key={d.eventId}>
                    <td>
                      {d.eventType ?? '—'} <Mono>{shortId(d.eventId)}</Mono>
                    </td>
                    <td>
                      <Status value={d.status} />
                    </td>
                    <td>{d.attempts}</td>
                    <td>{d.lastStatusCode ?? d.lastError ?? '—'}</td>
                    <td>
                      <When at={d.queuedAt} />
                    </td>
                    <td>
                      <When at={d.deliveredAt} />
                    </td>
                    <td>
                      <When at={d.nextAttemptAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Show>
    </section>
  );
}
