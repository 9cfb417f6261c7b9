import { pgSchema } from 'drizzle-orm/pg-core';

/**
 * The PostgreSQL schema of every sandbox table: the sandboxes' books, apart from the product's
 * tables in `public`. Created and migrated (drizzle-sandboxes/) only while sandboxes are on.
 */
export const sandboxSchema = pgSchema('sandbox');
