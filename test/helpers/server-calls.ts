import type pg from 'pg';

/**
 * The messages `fn` sends through `pool` (a PostgreSQL server's connections): the text of each
 * query, whether the pool runs it itself or a client checked out runs it (a transaction's
 * BEGIN, statements and COMMIT), and 'connect' for each such checkout. pool.query checks a
 * client out itself, synchronously; that checkout is not counted.
 */
export async function serverCalls<T>(pool: pg.Pool, fn: () => Promise<T>): Promise<{ calls: string[]; result: T }> {
  const calls: string[] = [];
  const query = pool.query.bind(pool);
  const connect = pool.connect.bind(pool);
  let inQuery = false;
  pool.query = ((...args: Parameters<typeof pool.query>) => {
    const first = args[0] as unknown;
    calls.push(typeof first === 'string' ? first : String((first as { text?: string }).text));
    inQuery = true;
    try {
      return query(...args);
    } finally {
      inQuery = false;
    }
  }) as typeof pool.query;
  pool.connect = ((...args: Parameters<typeof pool.connect>) => {
    if (inQuery || args.length > 0) return connect(...args);
    calls.push('connect');
    // A checked-out client's queries are counted too, until it is released.
    return (connect() as Promise<pg.PoolClient>).then((client) => {
      const clientQuery = client.query.bind(client);
      const release = client.release.bind(client);
      client.query = ((...queryArgs: Parameters<typeof client.query>) => {
        const first = queryArgs[0] as unknown;
        calls.push(typeof first === 'string' ? first : String((first as { text?: string }).text));
        return clientQuery(...queryArgs);
      }) as typeof client.query;
      client.release = ((...releaseArgs: Parameters<typeof client.release>) => {
        client.query = clientQuery;
        client.release = release;
        return release(...releaseArgs);
      }) as typeof client.release;
      return client;
    });
  }) as typeof pool.connect;
  try {
    return { calls, result: await fn() };
  } finally {
    pool.query = query;
    pool.connect = connect;
  }
}
