import { readFileSync } from 'node:fs';

/**
 * A port for a service a test starts as a process (PORT=...), below the kernel's ephemeral range.
 * Picked at random from 20000–39999, it could be the local port of any connection the suite's
 * other tests open meanwhile (Linux hands those out from 32768–60999), and the service then
 * failed to start with EADDRINUSE. Below the range, only another test's pick can take it (and
 * listeners on port 0 get ports from the range).
 */
export function servicePort(): number {
  let low = 32768;
  try {
    low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || low;
  } catch {
    // Not Linux: the default range's start.
  }
  const from = Math.min(20000, low - 2000);
  return from + Math.floor(Math.random() * (low - from));
}
