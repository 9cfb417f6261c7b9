import { join } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/** The import boundaries of eslint.config.js fail the lint on a new violation (docs/architecture.md, Layers). */
const root = join(import.meta.dirname, '..', '..');
const eslint = new ESLint({ cwd: root });
async function restricted(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, file) });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('import boundaries', () => {
  it('refuses platform -> module, provider -> module, module -> provider adapter or sandbox, module -> another module’s inside', async () => {
    expect(await restricted('src/platform/http/probe.ts', "import { x } from '../../modules/users/module.js';\nexport { x };\n")).toHaveLength(1);
    expect(await restricted('src/platform/http/probe.ts', "import { x } from '../../providers/custody/port.js';\nexport { x };\n")).toHaveLength(1);
    expect(await restricted('src/providers/custody/probe.ts', "import { x } from '../../modules/custody/service.js';\nexport { x };\n")).toHaveLength(1);
    expect(await restricted('src/modules/users/probe.ts', "import { x } from '../../providers/custody/custody-a/http.js';\nexport { x };\n")).toHaveLength(1);
    expect(await restricted('src/modules/users/probe.ts', "import { x } from '../kyc/repo.js';\nexport { x };\n")).toHaveLength(1);
    // A provider kind's files beside its port (helpers, a selector) are its own too.
    expect(await restricted('src/modules/users/probe.ts', "import { x } from '../../providers/xrpl-ledger/signatures.js';\nexport { x };\n")).toHaveLength(1);
    expect(await restricted('src/modules/users/probe.ts', "import { x } from '../../providers/storage/select.js';\nexport { x };\n")).toHaveLength(1);
    expect(await restricted('src/modules/users/deeper/probe.ts', "import { x } from '../../../providers/custody/custody-a/index.js';\nexport { x };\n")).toHaveLength(1);
  });

  it('lets the allowed imports through', async () => {
    expect(await restricted('src/modules/users/probe.ts', "import { x } from '../../providers/custody/port.js';\nimport { y } from '../kyc/service.js';\nimport { z } from '../../platform/http/errors.js';\nexport { x, y, z };\n")).toEqual([]);
  });
});
