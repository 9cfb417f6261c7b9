import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

const found = (): string | undefined => [process.env.CHROMIUM_PATH, ...CANDIDATES].find((p): p is string => Boolean(p && existsSync(p)));

/**
 * The path of a Chromium for headless journeys: Debian's `chromium`, installed with apt-get
 * when missing and allowed (root). Undefined, with the reason, where it cannot be installed.
 */
export function ensureChromium(): { path?: string; reason?: string } {
  const existing = found();
  if (existing) return { path: existing };
  if (process.getuid?.() !== 0 || !existsSync('/usr/bin/apt-get')) return { reason: 'Chromium is not installed and apt-get cannot run here (not root or not Debian)' };
  try {
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], { stdio: 'ignore', timeout: 600_000, env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  } catch (error) {
    return { reason: `apt-get install chromium failed: ${(error as Error).message}` };
  }
  const installed = found();
  return installed ? { path: installed } : { reason: 'apt-get ran but no chromium binary was found' };
}
