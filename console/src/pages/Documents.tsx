import { useEffect, useState } from 'react';
import type { UserDocument } from '@bastion/client';
import { ApiError, need } from '../api.ts';
import { Empty, ErrorNote, Show, useConsole, useLoad, When } from '../ui.tsx';

const INLINE = /^(image\/(png|jpeg|gif|webp)|application\/pdf|text\/plain)$/;

/**
 * A user's documents (GET /user-documents?userId=), each viewable inline: the content is fetched
 * with the admin's token (GET /user-documents/{id}/content) and shown from a blob: URL, so it
 * never travels without the admin's rights and the page needs no other origin.
 */
export function Documents({ userId, only }: { userId: string; only?: string[] }) {
  const docs = useLoad(async (client) => need(await client.GET('/user-documents', { params: { query: { userId, limit: 100, offset: 0 } } })), `docs-${userId}`);
  const [open, setOpen] = useState<UserDocument>();
  return (
    <Show loaded={docs} label="documents">
      {({ data }) => {
        const rows = only ? data.filter((d) => only.includes(d.id)) : data;
        if (rows.length === 0) return <Empty>No documents.</Empty>;
        return (
          <>
            <table>
              <caption className="visually-hidden">Documents</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Size</th>
                  <th scope="col">Source</th>
                  <th scope="col">Uploaded</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((d) => (
                  <tr key={d.id}>
                    <td>{d.name}</td>
                    <td>{(d.size / 1024).toFixed(1)} KiB</td>
                    <td>{d.source}</td>
                    <td>
                      <When at={d.createdAt} />
                    </td>
                    <td>
                      <button type="button" className="secondary small" aria-pressed={open?.id === d.id} onClick={() => setOpen(open?.id === d.id ? undefined : d)}>
                        {open?.id === d.id ? 'Hide' : 'View'} <span className="visually-hidden">{d.name}</span>
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            {open && <Viewer doc={open} />}
          </>
        );
      }}
    </Show>
  );
}

function Viewer({ doc }: { doc: UserDocument }) {
  const { client } = useConsole();
  const [shown, setShown] = useState<{ url: string; type: string } | { error: unknown }>();
  useEffect(() => {
    let url: string | undefined;
    let live = true;
    void (async () => {
      const res = await client.GET('/user-documents/{id}/content', { params: { path: { id: doc.id } }, parseAs: 'blob' });
      if (!live) return;
      const status = res.response.status;
      const blob = res.data as unknown as Blob | undefined;
      if (!blob || status !== 200) return setShown({ error: new ApiError(status, res.error) });
      url = URL.createObjectURL(blob);
      setShown({ url, type: blob.type });
    })();
    return () => {
      live = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [client, doc.id]);
  if (!shown) return <p role="status">Loading {doc.name}…</p>;
  if ('error' in shown) return <ErrorNote error={shown.error} />;
  return (
    <figure className="viewer">
      <figcaption>
        {doc.name} <span className="muted">({shown.type || 'unknown type'})</span> —{' '}
        <a href={shown.url} download={doc.name}>
          Download
        </a>
      </figcaption>
      {shown.type.startsWith('image/') ? (
        <img src={shown.url} alt={doc.name} />
      ) : INLINE.test(shown.type) ? (
        // A PDF needs the browser's viewer (no sandbox); text is shown sandboxed.
        shown.type === 'application/pdf' ? <iframe src={shown.url} title={doc.name} /> : <iframe src={shown.url} title={doc.name} sandbox="" />
      ) : (
        <p className="muted">This type is not shown inline; download it to open it.</p>
      )}
    </figure>
  );
}
