// `npm run build` (build:assets): the service's and the CLI's entry points as one ES module
// graph each (esbuild), in dist/bundle: main.mjs (`npm start`) and cli.mjs (`npm run cli`).
// Node loads about 2,000 files for the service from dist/src and node_modules; resolving,
// reading and compiling them one by one was about 3 s of CPU of a 7.5 s start on the 2-core
// machines. Bundled, the same code loads in about 1 s (docs/decisions.md, "The service starts
// from a bundle"). dist/src stays: the CLI's `bin`, the bench and the tests that look at the
// module graph use it.
//
// Only ES modules are bundled. A package Node loads as CommonJS stays outside (imported from
// node_modules as before): esbuild's CommonJS interop is not Node's (the named exports of
// `import('plaid')` differed), and the walkthrough found it. Also left outside: native modules,
// packages that read files beside their own code at run time (PGlite's WebAssembly and data,
// the Swagger UI's static files, the XRPL MPT WebAssembly), and the packages OpenTelemetry
// wraps as they load, so tracing sees them as it does unbundled.
import { build } from 'esbuild';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { root } from './built.mjs';

export const BUNDLE_EXTERNAL = [
  '@node-rs/*',
  '@nomicfoundation/*',
  '@electric-sql/pglite',
  '@electric-sql/pglite/*',
  '@fastify/swagger-ui',
  '@fastify/otel',
  '@opentelemetry/*',
  '@xrplf/mpt-crypto',
  'pg',
  'fastify',
  'undici',
];

/** The nearest package.json's "type" above a file ('commonjs' when absent). */
function packageType(file) {
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) return JSON.parse(readFileSync(manifest, 'utf8')).type ?? 'commonjs';
  }
  return 'commonjs';
}

/** Keeps every package Node would load as CommonJS outside the bundle (see above). */
const commonJsOutside = {
  name: 'commonjs-outside',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === 'resolving' || args.path.startsWith('node:')) return undefined;
      if (args.kind === 'require-call' || args.kind === 'require-resolve') return { path: args.path, external: true };
      const resolved = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: 'resolving' });
      if (resolved.errors.length > 0 || resolved.external || !resolved.path) return undefined;
      const file = resolved.path;
      const esm = file.endsWith('.mjs') || (file.endsWith('.js') && packageType(file) === 'module');
      return esm || file.endsWith('.json') ? undefined : { path: args.path, external: true };
    });
  },
};

const outdir = join(root, 'dist', 'bundle');
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: { main: join(root, 'dist', 'src', 'main.js'), cli: join(root, 'dist', 'src', 'cli.js') },
  outdir,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: BUNDLE_EXTERNAL,
  plugins: [commonJsOutside],
  // CommonJS code inside the bundle calls require(): give it one, resolved from here (node_modules above).
  banner: { js: "import { createRequire as __bastionCreateRequire } from 'node:module'; const require = __bastionCreateRequire(import.meta.url);" },
  logLevel: 'warning',
});
