import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * The operator console: built into dist/console by `npm run build`, served by the service under
 * /console (src/platform/http/console.ts). No inline script or style in the output (the page's
 * CSP forbids them), no external resource.
 */
export default defineConfig({
  root: here('.'),
  base: '/console/',
  plugins: [react()],
  resolve: {
    // The generated typed client, from its source: the console proves the public API is enough.
    alias: { '@bastion/client': here('../clients/typescript/src/index.ts') },
  },
  build: {
    outDir: here('../dist/console'),
    emptyOutDir: true,
    // The module-preload polyfill would be inlined; every browser the console supports has it.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
    chunkSizeWarningLimit: 400,
  },
  logLevel: 'warn',
});
