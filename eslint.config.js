import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * Files that break an import boundary today, by rule: removed by the provider-framework /
 * sandboxes work (issue #27 items 1 and 2) and the module entries. Do not add to these lists.
 */
const BOUNDARY_EXCEPTIONS = {
  platform: [],
  providers: [],
  modulesToProviders: [],
  modulesToModules: [],
};

const restrict = (message, group) => ({ group, message });

function boundaries() {
  const rule = (files, ignores, patterns) => ({
    files,
    ignores,
    rules: { 'no-restricted-imports': ['error', { patterns }] },
  });
  return [
    // By depth, so that src/platform/providers/ (the provider framework, part of the platform) stays allowed.
    ...['src/platform/*.ts', 'src/platform/*/*.ts', 'src/platform/*/*/*.ts'].map((files, depth) =>
      rule([files], BOUNDARY_EXCEPTIONS.platform, [
        restrict(
          'src/platform imports no module, provider or sandbox (docs/architecture.md, Layers).',
          ['modules', 'providers', 'sandboxes'].map((folder) => `${'../'.repeat(depth + 1)}${folder}/**`),
        ),
      ]),
    ),
    rule(['src/providers/**/*.ts'], BOUNDARY_EXCEPTIONS.providers, [
      restrict('src/providers imports nothing from src/modules (docs/architecture.md, Layers).', ['**/modules/**']),
    ]),
    ...[
      ['src/modules/*/*.ts', '../'],
      ['src/modules/*/*/*.ts', '../../'],
    ].map(([files, up]) =>
      rule([files], [...BOUNDARY_EXCEPTIONS.modulesToProviders, ...BOUNDARY_EXCEPTIONS.modulesToModules], [
        restrict("A module imports a provider's port only (src/providers/<kind>/port.ts), never its adapter, its helpers or its sandbox.", [
          // Any file of src/providers/<kind>/ but its port, anything deeper (an adapter, a declaration), a sandbox.
          '**/providers/*/*',
          '!**/providers/*/port.js',
          '**/providers/*/*/**',
          '**/sandboxes/**',
        ]),
        restrict("A module reaches another module through that module's entry only (its module.ts or service.ts; its table.ts for foreign keys).", [
          `${up}*/*`,
          `!${up}*/module.js`,
          `!${up}*/service.js`,
          // A table's foreign keys name the other module's table (tenants, users): the schema, not a call.
          `!${up}*/table.js`,
          // The one ownership rule (docs/architecture.md, "Declaring a route"), used by every module.
          `!${up}users/acting-for.js`,
          `!${up}../**`,
        ]),
      ]),
    ),
  ];
}

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'drizzle/**', 'clients/*/dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
      'no-control-regex': 'off',
    },
  },
  // The layering of docs/architecture.md ("Layers", "Import boundaries"), checked. Each
  // BOUNDARY_EXCEPTIONS entry is a file that breaks its rule today; the list may only shrink.
  ...boundaries(),
  {
    files: ['scripts/**/*.mjs'],
    languageOptions: { globals: { process: 'readonly' } },
  },
);
