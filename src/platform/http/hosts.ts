const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** A URL host name that names this machine (where plain http is acceptable: development, tests). */
export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || hostname.endsWith('.localhost');
}
