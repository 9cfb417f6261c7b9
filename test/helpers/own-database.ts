import { randomUUID } from 'node:crypto';
import pg from 'pg';

/**
 * A PostgreSQL database of its own for a service process a test starts, on the server of the
 * suite's DATABASE_URL.
 *
 * A started service runs every background worker (event dispatch, custody sweepers, XRPL
 * finishers) for every tenant of its database. On the suite's shared database it would take
 * other files' rows: dispatch their events (their workers then count fewer), or finish their
 * custody and XRPL moves on its own local chains, which their tests never see. In production
 * the instances of one database share their chains, so this is a test-only concern: each
 * started service gets a database of its own, migrated by the service at start.
 */
export interface OwnDatabase {
  url: string;
  drop(): Promise<void>;
}

export async function ownPostgresDatabase(suiteUrl: string, label: string): Promise<OwnDatabase> {
  const name = `bastion_proc_${label.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${randomUUID().slice(0, 8)}`;
  await admin(suiteUrl, `create database "${name}"`);
  const url = new URL(suiteUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    // WITH (FORCE) ends the sessions a killed service may have left behind.
    drop: () => admin(suiteUrl, `drop database if exists "${name}" with (force)`),
  };
}

async function admin(suiteUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: suiteUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
