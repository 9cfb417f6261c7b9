/**
 * `.ci/run` runs the suite twice and names the pass in BASTION_TEST_PASS: `pglite` (embedded
 * database) then `postgres` (PostgreSQL and Redis). Locally it is unset and everything runs.
 */
export const TEST_PASS = process.env.BASTION_TEST_PASS as 'pglite' | 'postgres' | undefined;

/**
 * For `describe.skipIf(ONE_PASS_ONLY)`: a test that starts real processes (the service, the
 * CLI binary, npm) and whose subject does not depend on the database kind (signals, the
 * embedded data dir, start-up, the build) runs on the PGlite pass only. Process tests of
 * PostgreSQL behaviour, several instances or Redis stay on the PostgreSQL pass.
 */
export const ONE_PASS_ONLY = TEST_PASS === 'postgres';

/**
 * For `describe.skipIf(POSTGRES_PASS_ONLY)`: a test of Redis (which the PostgreSQL pass has),
 * whose subject does not depend on the database kind, runs on the PostgreSQL pass only.
 */
export const POSTGRES_PASS_ONLY = TEST_PASS === 'pglite';
