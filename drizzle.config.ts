import { defineConfig } from 'drizzle-kit';

// The product's tables (schema `public`), read from their folders: the platform's and every
// module's table.ts. The sandboxes' tables have their own config (drizzle-sandboxes.config.ts).
export default defineConfig({
  dialect: 'postgresql',
  schema: ['./src/platform/**/table.ts', './src/platform/db/counters-table.ts', './src/modules/**/table.ts'],
  out: './drizzle',
  strict: true,
});
