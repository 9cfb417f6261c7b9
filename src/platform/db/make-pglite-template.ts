// `npm run build` (and `npm start` on a first run) makes the embedded database's template here.
// Made again when this checkout has migrations the template does not hold.
import { pgliteTemplateIsCurrent, writePgliteTemplate } from './pglite-template.js';

if (!pgliteTemplateIsCurrent()) process.stdout.write(`PGlite template: ${await writePgliteTemplate()}\n`);
