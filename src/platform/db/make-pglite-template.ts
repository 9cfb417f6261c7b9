// `npm run build` (and `npm start` on a first run) makes the embedded database's template here.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pgliteTemplateDir, writePgliteTemplate } from './pglite-template.js';

if (!existsSync(join(pgliteTemplateDir(), 'PG_VERSION'))) process.stdout.write(`PGlite template: ${await writePgliteTemplate()}\n`);
