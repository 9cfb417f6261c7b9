import { defineConfig } from 'drizzle-kit';

// The sandboxes' tables (schema `sandbox`), migrated only while sandboxes are on
// (src/platform/db/migrate.ts). `npm run db:generate` generates both folders.
export default defineConfig({
  dialect: 'postgresql',
  schema: ['./src/sandboxes/pg-schema.ts', './src/sandboxes/*/table.ts'],
  out: './drizzle-sandboxes',
  schemaFilter: ['sandbox'],
  strict: true,
});
