import type { FastifyInstance, FastifyRequest } from 'fastify';
import { parseSignature, parseTransaction, type Hex, type TypedDataDefinition } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { apiPath, authenticate, randomId, requireUserAction, SANDBOX_PREFIX, SandboxError, sendError, type Caller, type SandboxContext } from './context.js';
import type { CustodyBSandboxWalletRow } from './table.js';
import { isXrplNetwork, signXrplTransaction, xrplAccountOf, XRPL_NETWORKS } from './xrpl.js';

/** EVM networks the sandbox opens wallets on: every one of them is the local chain. */
export const SANDBOX_EVM_NETWORKS = ['Ethereum', 'EthereumSepolia', 'EthereumHolesky', 'Polygon', 'PolygonAmoy', 'Base', 'BaseSepolia', 'ArbitrumOne', 'ArbitrumSepolia', 'Optimism', 'OptimismSepolia'];
/** Every network the sandbox opens wallets on (the XRPL ones are the service's XRPL ledger). */
export const SANDBOX_NETWORKS = [...SANDBOX_EVM_NETWORKS, ...XRPL_NETWORKS];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const HEX = /^0x(?:[0-9a-fA-F]{2})*$/;
/** EVM transactions are 0x hex; XRPL ones are hex with or without 0x. */
const XRPL_OR_EVM_HEX = /^(?:0x)?(?:[0-9a-fA-F]{2})+$/;
const walletContext = (id: string) => `custody-b-sandbox-wallet:${id}`;

function walletDto(row: CustodyBSandboxWalletRow) {
  return {
    id: row.id,
    network: row.network,
    address: row.address,
    name: row.name ?? undefined,
    status: 'Active',
    signingKey: { scheme: 'ECDSA', curve: 'secp256k1', publicKey: row.publicKey },
    dateCreated: row.createdAt.toISOString(),
    custodial: false,
  };
}

/** The EIP-712 primary type: the one type no other type refers to. */
function primaryTypeOf(types: Record<string, { name: string; type: string }[]>): string {
  const names = Object.keys(types).filter((n) => n !== 'EIP712Domain');
  const referenced = new Set(Object.values(types).flatMap((fields) => fields.map((f) => f.type.replace(/\[\d*\]$/g, ''))));
  const roots = names.filter((n) => !referenced.has(n));
  if (roots.length !== 1) throw new SandboxError(400, 'Bad request: the EIP-712 types must have exactly one primary type');
  return roots[0]!;
}

function signatureDto(hex: Hex) {
  const { r, s, yParity } = parseSignature(hex);
  return { r, s, recid: yParity, encoded: hex };
}

/** The provider's wallet API: create, list, sign (messages, typed data, transactions), broadcast. */
export function walletEndpoints(app: FastifyInstance, ctx: SandboxContext): void {
  const { store, options } = ctx;
  const now = () => options.clock.now();

  const handle = (work: (request: FastifyRequest) => Promise<unknown>) => async (request: FastifyRequest, reply: import('fastify').FastifyReply) => {
    try {
      return reply.code(200).send(await work(request));
    } catch (error) {
      return sendError(reply, error);
    }
  };

  async function ownWallet(caller: Caller, walletId: string): Promise<{ row: CustodyBSandboxWalletRow; key: Hex; account: PrivateKeyAccount }> {
    const row = await store.wallet(caller.orgId, walletId);
    if (!row || row.userId !== caller.userId) throw new SandboxError(404, 'Not found: no such wallet');
    const key = (await options.secrets.decrypt(row.sealedKey, walletContext(row.id))) as Hex;
    return { row, key, account: privateKeyToAccount(key) };
  }

  /** An XRPL wallet signs transactions only (no EIP-191 or EIP-712): answers the signed blob as `signedData`. */
  async function signXrplOnly(caller: Caller, row: CustodyBSandboxWalletRow, key: Hex, body: Record<string, unknown>) {
    if (body.kind !== 'Transaction' || typeof body.transaction !== 'string' || !XRPL_OR_EVM_HEX.test(body.transaction)) {
      throw new SandboxError(400, `Bad request: a ${row.network} wallet signs kind Transaction (the unsigned serialized transaction, hex) only`);
    }
    const signed = signXrplTransaction(key, body.transaction);
    const id = randomId('sig');
    const signature = { ...signed.signature, recid: 0 };
    await store.insertSignature({ id, orgId: caller.orgId, walletId: row.id, kind: 'Transaction', requestBody: body, signature, signedData: signed.blob, status: 'Signed', createdAt: now() });
    return { id, walletId: row.id, network: row.network, requester: { userId: caller.userId }, requestBody: body, status: 'Signed', signature, signedData: signed.blob, dateRequested: now().toISOString(), dateSigned: now().toISOString() };
  }

  async function userAction(request: FastifyRequest): Promise<Caller> {
    const caller = await authenticate(ctx, request, ['user']);
    await requireUserAction(ctx, request, caller, apiPath(request.url));
    if (!isObject(request.body)) throw new SandboxError(400, 'Bad request: the body must be a JSON object');
    return caller;
  }

  app.post(
    `${SANDBOX_PREFIX}/wallets`,
    { schema: { hide: true } },
    handle(async (request) => {
      const caller = await userAction(request);
      const body = request.body as Record<string, unknown>;
      if (typeof body.network !== 'string' || !SANDBOX_NETWORKS.includes(body.network)) throw new SandboxError(400, `Bad request: network must be one of ${SANDBOX_NETWORKS.join(', ')}`);
      const name = typeof body.name === 'string' && body.name.length <= 200 ? body.name : null;
      const privateKey = generatePrivateKey();
      // One secp256k1 key either way: an EVM address, or an XRPL account of its compressed public key.
      const { address, publicKey } = isXrplNetwork(body.network) ? xrplAccountOf(privateKey) : privateKeyToAccount(privateKey);
      const id = randomId('wa');
      const row = { id, orgId: caller.orgId, userId: caller.userId, network: body.network, name, address, publicKey, sealedKey: options.secrets.encrypt(privateKey, walletContext(id)), createdAt: now() };
      await store.insertWallet(row);
      return walletDto(row);
    }),
  );

  app.get(
    `${SANDBOX_PREFIX}/wallets`,
    { schema: { hide: true } },
    handle(async (request) => {
      const caller = await authenticate(ctx, request, ['user']);
      return { items: (await store.walletsOf(caller.orgId, caller.userId)).map(walletDto) };
    }),
  );

  app.post(
    `${SANDBOX_PREFIX}/wallets/:walletId/signatures`,
    { schema: { hide: true } },
    handle(async (request) => {
      const caller = await userAction(request);
      const { row, key, account } = await ownWallet(caller, (request.params as { walletId: string }).walletId);
      const body = request.body as Record<string, unknown>;
      if (isXrplNetwork(row.network)) return signXrplOnly(caller, row, key, body);
      let signed: Hex;
      let signedData: string | undefined;
      try {
        if (body.kind === 'Message' && typeof body.message === 'string' && HEX.test(body.message)) {
          signed = await account.signMessage({ message: { raw: body.message as Hex } });
        } else if (body.kind === 'Eip712' && isObject(body.types) && isObject(body.domain) && isObject(body.message)) {
          const types = body.types as Record<string, { name: string; type: string }[]>;
          signed = await account.signTypedData({ types, domain: body.domain, message: body.message, primaryType: primaryTypeOf(types) } as unknown as TypedDataDefinition);
        } else if (body.kind === 'Hash' && typeof body.hash === 'string' && /^0x[0-9a-fA-F]{64}$/.test(body.hash)) {
          signed = await account.sign({ hash: body.hash as Hex });
        } else if (body.kind === 'Transaction' && typeof body.transaction === 'string' && HEX.test(body.transaction)) {
          signedData = await account.signTransaction(parseTransaction(body.transaction as Hex));
          const tx = parseTransaction(signedData as Hex);
          signed = `0x${tx.r!.slice(2).padStart(64, '0')}${tx.s!.slice(2).padStart(64, '0')}${(Number(tx.yParity ?? 0) + 27).toString(16)}` as Hex;
        } else {
          throw new SandboxError(400, 'Bad request: kind must be Message (hex), Eip712 (types, domain, message), Hash or Transaction (hex)');
        }
      } catch (error) {
        if (error instanceof SandboxError) throw error;
        throw new SandboxError(400, `Bad request: cannot sign: ${error instanceof Error ? error.message.split('\n')[0] : 'invalid input'}`);
      }
      const id = randomId('sig');
      const signature = signatureDto(signed);
      await store.insertSignature({ id, orgId: caller.orgId, walletId: row.id, kind: String(body.kind), requestBody: body, signature, signedData: signedData ?? null, status: 'Signed', createdAt: now() });
      return { id, walletId: row.id, network: row.network, requester: { userId: caller.userId }, requestBody: body, status: 'Signed', signature, signedData, dateRequested: now().toISOString(), dateSigned: now().toISOString() };
    }),
  );

  app.post(
    `${SANDBOX_PREFIX}/wallets/:walletId/transactions`,
    { schema: { hide: true } },
    handle(async (request) => {
      const caller = await userAction(request);
      const { row, key, account } = await ownWallet(caller, (request.params as { walletId: string }).walletId);
      const body = request.body as Record<string, unknown>;
      if (body.kind !== 'Transaction' || typeof body.transaction !== 'string' || !XRPL_OR_EVM_HEX.test(body.transaction)) {
        throw new SandboxError(400, 'Bad request: kind must be Transaction with the unsigned serialized transaction (hex)');
      }
      // Signed once and stored before it is sent (ctx.broadcasts): a crash after this point is resumed, never signed again.
      const signed = isXrplNetwork(row.network) ? (({ blob, hash }) => ({ raw: blob, hash }))(signXrplTransaction(key, body.transaction)) : await ctx.broadcasts.signEvm(account, body.transaction);
      const id = randomId('tx');
      const { txHash } = await ctx.broadcasts.broadcast({ id, orgId: caller.orgId, walletId: row.id, kind: 'Transaction', requestBody: body, signedData: signed.raw, txHash: signed.hash, createdAt: now() });
      return { id, walletId: row.id, network: row.network, requester: { userId: caller.userId }, requestBody: body, status: 'Broadcasted', txHash, dateRequested: now().toISOString(), dateBroadcasted: now().toISOString() };
    }),
  );
}
