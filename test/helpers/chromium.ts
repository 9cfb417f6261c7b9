import { existsSync } from 'node:fs';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

const found = (): string | undefined => [process.env.CHROMIUM_PATH, ...CANDIDATES].find((p): p is string => Boolean(p && existsSync(p)));

/**
 * The path of a Chromium for headless journeys (Debian's `chromium`; `CHROMIUM_PATH` names
 * another). Tests never install system packages: `.ci/run` installs it (`apt-get install -y
 * chromium`); on a developer machine without it the journey is skipped with the reason. Under
 * CI (`CI` or `BASTION_TEST_PASS` set, as `.ci/run` does) a missing Chromium is not a reason to skip: the path is undefined and
 * `required` is true, so the journey runs and fails saying so.
 */
export function ensureChromium(): { path?: string; reason?: string; required: boolean } {
  const existing = found();
  if (existing) return { path: existing, required: true };
  const reason = 'Chromium is not installed (apt-get install -y chromium, or set CHROMIUM_PATH)';
  return { reason, required: Boolean(process.env.CI || process.env.BASTION_TEST_PASS) };
}
