import { setTimeout as sleep } from 'node:timers/promises';
import { Client, RippledError, type SubmittableTransaction } from 'xrpl';
import {
  XrplLedgerError,
  type XrplAccountInfo,
  type XrplFinalOutcome,
  type XrplLedgerPort,
  type XrplServerInfo,
  type XrplSubmitResult,
  type XrplTrustLine,
  type XrplTxStatus,
} from './port.js';
import { signedTransactionHash } from './signatures.js';

export interface RippledLedgerOptions {
  /** ws:// or wss:// URL of a rippled server (or the stand-in). */
  url: string;
  /** The faucet (POST {destination, xrpAmount}), e.g. https://faucet.altnet.rippletest.net/accounts; none on mainnet. */
  faucetUrl?: string;
  isSandbox?: boolean;
  /** How often waitForFinal and fundAccount look again. Default 500 ms. */
  pollIntervalMs?: number;
  connectionTimeoutMs?: number;
}

const LSF = { defaultRipple: 0x00800000, disableMaster: 0x00100000, requireDestTag: 0x00020000, requireAuth: 0x00040000, disallowXRP: 0x00080000, depositAuth: 0x01000000, globalFreeze: 0x00400000, noFreeze: 0x00200000 };

type Any = Record<string, unknown>;

/** The ledger port over the `xrpl` Client's WebSocket connection: unchanged for rippled and the stand-in. */
export class RippledLedger implements XrplLedgerPort {
  readonly url: string;
  readonly isSandbox: boolean;
  private readonly client: Client;
  private connecting: Promise<void> | undefined;
  private readonly poll: number;

  constructor(private readonly options: RippledLedgerOptions) {
    this.url = options.url;
    this.isSandbox = options.isSandbox ?? false;
    this.poll = options.pollIntervalMs ?? 500;
    this.client = new Client(options.url, { connectionTimeout: options.connectionTimeoutMs ?? 10_000 });
  }

  private async connected(): Promise<Client> {
    if (this.client.isConnected()) return this.client;
    this.connecting ??= this.client.connect().finally(() => (this.connecting = undefined));
    try {
      await this.connecting;
    } catch (error) {
      throw new XrplLedgerError('unreachable', `XRPL server ${this.url} is not reachable: ${(error as Error).message}`);
    }
    return this.client;
  }

  /** One request; rippled's error answers become XrplLedgerError('rejected') carrying the error token. */
  private async request(request: Any): Promise<Any> {
    const client = await this.connected();
    try {
      const response = (await client.request(request as never)) as { result: Any };
      return response.result;
    } catch (error) {
      if (error instanceof RippledError) {
        const data = (error.data ?? {}) as Any;
        const token = typeof data.error === 'string' ? data.error : 'unknown';
        const message = String(data.error_exception ?? data.error_message ?? error.message);
        throw new XrplLedgerError(token === 'invalidTransaction' ? 'invalid_transaction' : 'rejected', message, token);
      }
      throw new XrplLedgerError('unreachable', `XRPL request failed: ${(error as Error).message}`);
    }
  }

  async serverInfo(): Promise<XrplServerInfo> {
    const [info, state] = await Promise.all([this.request({ command: 'server_info' }), this.request({ command: 'server_state' })]);
    const i = info.info as Any;
    const vl = ((state.state as Any).validated_ledger ?? {}) as Any;
    return {
      buildVersion: String(i.build_version),
      ...(typeof i.network_id === 'number' ? { networkId: i.network_id } : {}),
      validatedLedgerIndex: Number(vl.seq ?? 0),
      baseFeeDrops: String(vl.base_fee ?? 10),
      reserveBaseDrops: String(vl.reserve_base ?? 0),
      reserveIncDrops: String(vl.reserve_inc ?? 0),
      loadFactor: Number(i.load_factor ?? 1),
    };
  }

  async accountInfo(address: string, options: { ledger?: 'validated' | 'current' } = {}): Promise<XrplAccountInfo | null> {
    let result: Any;
    try {
      result = await this.request({ command: 'account_info', account: address, ledger_index: options.ledger ?? 'validated', signer_lists: true });
    } catch (error) {
      if (error instanceof XrplLedgerError && error.rippledError === 'actNotFound') return null;
      throw error;
    }
    const root = result.account_data as Any;
    const lists = (result.signer_lists ?? root.signer_lists ?? []) as Any[];
    const list = lists[0];
    const flagsValue = Number(root.Flags ?? 0);
    const has = (bit: number) => (flagsValue & bit) !== 0;
    return {
      address: String(root.Account),
      balanceDrops: String(root.Balance),
      sequence: Number(root.Sequence),
      ownerCount: Number(root.OwnerCount ?? 0),
      flagsValue,
      flags: {
        defaultRipple: has(LSF.defaultRipple), disableMaster: has(LSF.disableMaster), requireDestTag: has(LSF.requireDestTag), requireAuth: has(LSF.requireAuth),
        disallowXRP: has(LSF.disallowXRP), depositAuth: has(LSF.depositAuth), globalFreeze: has(LSF.globalFreeze), noFreeze: has(LSF.noFreeze),
      },
      ...(typeof root.RegularKey === 'string' ? { regularKey: root.RegularKey } : {}),
      ...(list
        ? { signerList: { quorum: Number(list.SignerQuorum), signers: (list.SignerEntries as { SignerEntry: { Account: string; SignerWeight: number } }[]).map((e) => ({ account: e.SignerEntry.Account, weight: e.SignerEntry.SignerWeight })) } }
        : {}),
      ledgerIndex: Number(result.ledger_index ?? result.ledger_current_index),
      validated: result.validated === true,
    };
  }

  async accountLines(address: string, options: { ledger?: 'validated' | 'current' } = {}): Promise<XrplTrustLine[]> {
    const lines: XrplTrustLine[] = [];
    let marker: unknown;
    do {
      let result: Any;
      try {
        result = await this.request({ command: 'account_lines', account: address, ledger_index: options.ledger ?? 'validated', limit: 400, ...(marker ? { marker } : {}) });
      } catch (error) {
        if (error instanceof XrplLedgerError && error.rippledError === 'actNotFound') return [];
        throw error;
      }
      for (const line of result.lines as Any[]) {
        lines.push({
          peer: String(line.account), currency: String(line.currency), balance: String(line.balance), limit: String(line.limit), limitPeer: String(line.limit_peer),
          noRipple: line.no_ripple === true, noRipplePeer: line.no_ripple_peer === true,
        });
      }
      marker = result.marker;
    } while (marker);
    return lines;
  }

  async autofill<T extends SubmittableTransaction>(tx: T, options: { signersCount?: number } = {}): Promise<T> {
    const client = await this.connected();
    try {
      return (await client.autofill(tx, options.signersCount)) as T;
    } catch (error) {
      if (error instanceof RippledError) {
        const data = (error.data ?? {}) as Any;
        throw new XrplLedgerError('rejected', String(data.error_message ?? error.message), typeof data.error === 'string' ? data.error : undefined);
      }
      throw error instanceof XrplLedgerError ? error : new XrplLedgerError('rejected', (error as Error).message);
    }
  }

  async submit(txBlob: string): Promise<XrplSubmitResult> {
    const result = await this.request({ command: 'submit', tx_blob: txBlob });
    const txJson = (result.tx_json ?? {}) as Any;
    return {
      hash: typeof txJson.hash === 'string' && txJson.hash ? txJson.hash : signedTransactionHash(txBlob),
      engineResult: String(result.engine_result),
      engineResultCode: Number(result.engine_result_code),
      engineResultMessage: String(result.engine_result_message ?? ''),
      accepted: result.accepted === true || result.kept === true || result.queued === true,
      ...(typeof result.account_sequence_next === 'number' ? { accountSequenceNext: result.account_sequence_next } : {}),
      tx: txJson,
    };
  }

  async lookupTransaction(hash: string): Promise<XrplTxStatus> {
    let result: Any;
    try {
      result = await this.request({ command: 'tx', transaction: hash });
    } catch (error) {
      if (error instanceof XrplLedgerError && error.rippledError === 'txnNotFound') return { hash, found: false, validated: false };
      throw error;
    }
    const meta = result.meta as Any | undefined;
    const validated = result.validated === true;
    return {
      hash,
      found: true,
      validated,
      ...(typeof result.ledger_index === 'number' ? { ledgerIndex: result.ledger_index } : {}),
      ...(validated && meta && typeof meta.TransactionResult === 'string' ? { result: meta.TransactionResult } : {}),
      tx: (result.tx_json ?? result) as Any,
    };
  }

  async waitForFinal(hash: string, lastLedgerSequence: number, options: { timeoutMs?: number } = {}): Promise<XrplFinalOutcome> {
    const deadline = Date.now() + (options.timeoutMs ?? 60_000);
    for (;;) {
      const status = await this.lookupTransaction(hash);
      if (status.validated && status.result && status.ledgerIndex !== undefined) {
        return { status: 'validated', hash, result: status.result, ledgerIndex: status.ledgerIndex, ...(status.tx ? { tx: status.tx } : {}) };
      }
      const validatedIndex = Number((await this.request({ command: 'ledger', ledger_index: 'validated' })).ledger_index);
      if (validatedIndex > lastLedgerSequence) {
        // Look once more: the ledger that holds it may have validated between the two requests.
        const again = await this.lookupTransaction(hash);
        if (again.validated && again.result && again.ledgerIndex !== undefined) return { status: 'validated', hash, result: again.result, ledgerIndex: again.ledgerIndex };
        return { status: 'expired', hash, validatedLedgerIndex: validatedIndex };
      }
      if (Date.now() >= deadline) return { status: 'pending', hash };
      await sleep(this.poll);
    }
  }

  async fundAccount(address: string, xrp?: string): Promise<{ balanceDrops: string }> {
    if (!this.options.faucetUrl) throw new XrplLedgerError('faucet_unavailable', 'This network has no faucet configured.');
    const before = BigInt((await this.accountInfo(address))?.balanceDrops ?? '0');
    let response: Response;
    try {
      response = await fetch(this.options.faucetUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ destination: address, ...(xrp ? { xrpAmount: xrp } : {}) }),
      });
    } catch (error) {
      throw new XrplLedgerError('unreachable', `Faucet not reachable: ${(error as Error).message}`);
    }
    if (!response.ok) throw new XrplLedgerError('rejected', `Faucet refused: ${response.status} ${await response.text()}`);
    const deadline = Date.now() + 30_000;
    for (;;) {
      const info = await this.accountInfo(address);
      if (info && BigInt(info.balanceDrops) > before) return { balanceDrops: info.balanceDrops };
      if (Date.now() >= deadline) throw new XrplLedgerError('unreachable', 'The faucet payment was not validated in time.');
      await sleep(this.poll);
    }
  }

  async close(): Promise<void> {
    if (this.client.isConnected()) await this.client.disconnect();
  }
}
