import type { IncomingMessage, ServerResponse } from 'node:http';
import { isValidClassicAddress, Wallet } from 'xrpl';
import type { StandInLedger } from './ledger.js';

export interface FaucetOptions {
  /** What the faucet pays when the request names no amount, in XRP. Default 1000. */
  faucetXrp?: number;
  /** The most it pays at once, in XRP. Default 100,000. */
  faucetMaxXrp?: number;
}

/** POST /accounts {destination?, xrpAmount?}: pays from the genesis account, as the XRPL test faucets do. */
export async function faucet(ledger: StandInLedger, options: FaucetOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const reply = (status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  if (req.method !== 'POST' || req.url !== '/accounts') return reply(404, { error: 'Not found' });
  let raw = '';
  for await (const chunk of req) {
    raw += chunk;
    if (raw.length > 10_000) return reply(413, { error: 'Body too large' });
  }
  let body: { destination?: unknown; xrpAmount?: unknown };
  try {
    body = raw ? JSON.parse(raw) : {};
  } catch {
    return reply(400, { error: 'Body is not JSON' });
  }
  const generated = body.destination === undefined ? Wallet.generate() : undefined;
  const destination = generated?.classicAddress ?? body.destination;
  if (typeof destination !== 'string' || !isValidClassicAddress(destination)) return reply(400, { error: 'Invalid destination' });
  const xrpText = body.xrpAmount === undefined ? String(options.faucetXrp ?? 1000) : String(body.xrpAmount);
  if (!/^\d{1,12}(\.\d{1,6})?$/.test(xrpText) || Number(xrpText) <= 0 || Number(xrpText) > (options.faucetMaxXrp ?? 100_000)) return reply(400, { error: 'Invalid xrpAmount' });
  const [whole = '0', fraction = ''] = xrpText.split('.');
  const drops = BigInt(whole) * 1_000_000n + BigInt(fraction.padEnd(6, '0'));
  const outcome = ledger.fund(destination, drops);
  if (outcome.result !== 'tesSUCCESS') return reply(400, { error: `Funding failed: ${outcome.result}`, engine_result: outcome.result });
  return reply(200, {
    account: { address: destination, classicAddress: destination, ...(generated ? { secret: generated.seed } : {}) },
    amount: Number(xrpText),
    transactionHash: outcome.hash,
    ...(generated ? { seed: generated.seed } : {}),
  });
}
