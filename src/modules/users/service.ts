import type { SQL, SQLWrapper } from 'drizzle-orm';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import type { Clock } from '../../platform/clock.js';
import { newId } from '../../platform/clock.js';
import type { DbOrTx } from '../../platform/db/client.js';
import { mapConstraintErrors } from '../../platform/db/pg-errors.js';
import { isTransaction, type RunInTx } from '../../platform/db/tx.js';
import { writeTogether, writeTogetherReturning, type TemplateCondition, type TemplateWrite } from '../../platform/db/write-together.js';
import { appendEvent, appendEventStatement } from '../../platform/events/outbox.js';
import { paginate, type Page, type PageParams } from '../../platform/http/pagination.js';
import type { Viewer } from '../../platform/http/context.js';
import type { AppError } from '../../platform/http/errors.js';
import { subjectFor } from './acting-for.js';
import { UserErrors } from './errors.js';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { UserFilters, UserKeyColumns, UsersRepo, UserWith } from './repo.js';
import type { CreateUserInput, UpdateUserInput, UserDto, UserProfileDto, WalletAddressesDto } from './schemas.js';
import type { UserRole, UserRow } from './table.js';
import { parseEvmAddress } from '../../platform/crypto/evm-address.js';

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Trims and lower-cases an email; the one form stored, compared and looked up. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function isValidEmail(email: string): boolean {
  const normalized = normalizeEmail(email);
  return normalized.length <= 254 && EMAIL_RE.test(normalized);
}

/** E.164 form of a phone number in international format, or a 400. */
export function normalizePhone(phone: string): string {
  const parsed = parsePhoneNumberFromString(phone.trim());
  if (!parsed || !parsed.isValid()) throw UserErrors.invalidPhone();
  return parsed.number;
}

export function toUserDto(row: UserRow): UserDto {
  return {
    id: row.id,
    email: row.email,
    fullName: row.fullName,
    phone: row.phone,
    role: row.role,
    emailVerified: row.emailVerified,
    kycStatus: row.kycStatus,
    evmEoa: row.evmEoa,
    xrplSecureAccountAddress: row.xrplSecureAccountAddress,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

function walletAddressesOf(row: UserRow): WalletAddressesDto {
  return { evm: row.evmEoa, evmCompatible: row.evmCompatibleAddress, xrpl: row.xrplAddress };
}

/**
 * The forms an EVM address filter matches: EIP-55 (how wallets are stored) and lower case (older
 * rows). A value the one address rule refuses (a wrong checksum included) matches only itself,
 * that is nothing stored: a typo is not quietly corrected into someone's address.
 */
function evmAddressForms(value: string): string[] {
  const trimmed = value.trim();
  const address = parseEvmAddress(trimmed);
  if (!address) return [trimmed];
  return [...new Set([address, address.toLowerCase()])];
}

export type WalletAddressField = 'evmEoa' | 'evmCompatibleAddress' | 'xrplAddress' | 'xrplSecureAccountAddress';

const userConstraints = {
  users_tenant_email_unique: UserErrors.emailTaken,
  users_tenant_phone_unique: UserErrors.phoneTaken,
};

/** The profile fields that are leaves of the identity tree (identity/sources.ts): a change is announced. */
const IDENTITY_FIELDS: readonly WalletAddressField[] = ['evmEoa', 'evmCompatibleAddress', 'xrplAddress', 'xrplSecureAccountAddress'];

export function createUsersService(deps: {
  db: DbOrTx;
  repo: UsersRepo;
  tx: RunInTx;
  clock: Clock;
  /** Announces `identity.changed` in `db`, the transaction of the change (the identity root is recomputed there). */
  identityChanged?: (tenantId: string, userId: string, db: DbOrTx) => Promise<void>;
}) {
  const { db, repo, tx, clock } = deps;
  const identityChanged = deps.identityChanged ?? (async () => undefined);

  /** A new user's complete row, as it will be stored (not written); a 400 for an invalid email. */
  function newRow(tenantId: string, input: CreateUserInput & { emailVerified?: boolean; role?: UserRole }): UserRow {
    if (!isValidEmail(input.email)) throw UserErrors.invalidEmail();
    const now = clock.now();
    return {
      tenantId,
      id: newId(),
      email: normalizeEmail(input.email),
      fullName: input.fullName?.trim() || null,
      phone: null,
      role: input.role ?? 'user',
      emailVerified: input.emailVerified ?? false,
      kycStatus: null,
      evmEoa: null,
      evmCompatibleAddress: null,
      xrplAddress: null,
      xrplSecureAccountAddress: null,
      createdAt: now,
      updatedAt: now,
    };
  }

  async function requireUser(tenantId: string, id: string, db?: DbOrTx): Promise<UserRow> {
    const row = await repo.findById(tenantId, id, db);
    if (!row) throw UserErrors.notFound();
    return row;
  }

  return {
    /**
     * The user a call acts for (the own-record rule, `subjectFor`), which must exist in the
     * tenant (else 404 USER_NOT_FOUND). `ctx` is the call context.
     */
    async actingFor(ctx: Viewer & { tenantId: string }, requested: string | undefined, userIdRequired: () => AppError): Promise<string> {
      const userId = subjectFor(ctx, requested, userIdRequired);
      await requireUser(ctx.tenantId, userId);
      return userId;
    },

    /**
     * A page of the records of the user a call acts for (the same rule and the same 404 as
     * actingFor), read first: a record of the user proves that it exists (records are written
     * only for a user that exists, and no user is ever deleted; a tenant's deletion takes both),
     * so only an empty list reads the user. One statement instead of two for a user with records.
     */
    async pageActingFor<T>(
      ctx: Viewer & { tenantId: string },
      requested: string | undefined,
      userIdRequired: () => AppError,
      read: (userId: string) => Promise<Page<T> & { userFound?: boolean }>,
    ): Promise<Page<T>> {
      const userId = subjectFor(ctx, requested, userIdRequired);
      const { userFound, ...page } = await read(userId);
      if (page.total === 0 && page.data.length === 0) {
        // A read that asked in its own statement (userExistsSql) says so; otherwise the user is read.
        if (userFound === false) throw UserErrors.notFound();
        if (userFound === undefined) await requireUser(ctx.tenantId, userId);
      }
      return page;
    },

    /** Whether a user exists, as SQL for another module's read to ask in its own statement (its answer goes to pageActingFor as `userFound`). */
    userExistsSql: (tenantId: SQLWrapper, id: SQLWrapper): SQL<boolean> => repo.existsSql(tenantId, id),

    /**
     * Creates a user (no password). Runs inside `outerTx` when given, so the auth module can
     * create the user and its credential atomically.
     */
    async createUser(
      tenantId: string,
      input: CreateUserInput & { emailVerified?: boolean; role?: UserRole },
      outerTx?: DbOrTx,
    ): Promise<UserRow> {
      const values = newRow(tenantId, input);
      const create = async (db: DbOrTx) => {
        const row = await repo.insert(tenantId, values, db);
        await appendEvent(db, tenantId, 'user.created', { userId: row.id, email: row.email });
        return row;
      };
      return mapConstraintErrors(() => (outerTx ? create(outerTx) : tx(create)), userConstraints);
    },

    /**
     * A new user's row as createUser would store it, not yet written: for a caller that writes
     * the user together with rows of its own (insertTogether), and must know its id first.
     */
    newRow,

    /**
     * Writes a row from newRow, its `user.created` event and `alsoWrite` (other modules' writes,
     * built but not run) as one SQL statement: all commit or none (sign-up, one round trip).
     * A taken email is the same 409 as createUser's.
     */
    async insertTogether(row: UserRow, alsoWrite: SQLWrapper[]): Promise<void> {
      const writes = [
        repo.insertStatement(row, db),
        appendEventStatement(db, row.tenantId, 'user.created', { userId: row.id, email: row.email }),
        ...alsoWrite,
      ];
      await mapConstraintErrors(() => writeTogether(db, writes), userConstraints);
    },

    async getUser(tenantId: string, id: string): Promise<UserDto> {
      return toUserDto(await requireUser(tenantId, id));
    },

    async getProfile(tenantId: string, id: string): Promise<UserProfileDto> {
      const row = await requireUser(tenantId, id);
      return { ...toUserDto(row), walletAddresses: walletAddressesOf(row) };
    },

    /** The user's identity-relevant fields as a scalar subquery (JSON), for the identity module's one read. */
    identityJson: (tenantId: SQLWrapper, id: SQLWrapper): SQL => repo.identityJson(tenantId, id),

    async findRow(tenantId: string, id: string, db?: DbOrTx): Promise<UserRow | undefined> {
      return repo.findById(tenantId, id, db);
    },

    async findRowByEmail(tenantId: string, email: string, db?: DbOrTx): Promise<UserRow | undefined> {
      return repo.findByEmail(tenantId, normalizeEmail(email), db);
    },

    /**
     * A read of a user by email with another module's row beside it, as one prepared statement
     * (see the repo's byEmailWith); built once, by the module that owns the joined table.
     */
    byEmailWith<T extends PgTable>(name: string, table: T, on: (user: UserKeyColumns) => SQL) {
      const read = repo.byEmailWith(name, table, on);
      return (tenantId: string, email: string): Promise<UserWith<T> | undefined> => read(tenantId, normalizeEmail(email));
    },

    async updateUser(tenantId: string, id: string, input: UpdateUserInput): Promise<UserDto> {
      const changes: { fullName?: string | null; phone?: string | null; updatedAt: Date } = { updatedAt: clock.now() };
      if (input.fullName !== undefined) changes.fullName = input.fullName === null ? null : input.fullName.trim();
      if (input.phone !== undefined) changes.phone = input.phone === null ? null : normalizePhone(input.phone);
      const row = await mapConstraintErrors(
        () =>
          tx(async (db) => {
            const updated = await repo.update(tenantId, id, changes, db);
            if (!updated) throw UserErrors.notFound();
            await appendEvent(db, tenantId, 'user.updated', { userId: id, fields: Object.keys(input) });
            return updated;
          }),
        userConstraints,
      );
      return toUserDto(row);
    },

    /**
     * Marks the email verified (verification, a password reset by mail, an IdP asserting it)
     * and writes `user.email_verified` to the outbox, once: an already verified user is unchanged.
     */
    async markEmailVerified(tenantId: string, user: UserRow, db: DbOrTx): Promise<UserRow> {
      if (user.emailVerified) return user;
      const row = await repo.update(tenantId, user.id, { emailVerified: true, updatedAt: clock.now() }, db);
      if (!row) throw UserErrors.notFound();
      await appendEvent(db, tenantId, 'user.email_verified', { userId: row.id, email: row.email });
      return row;
    },

    /** Internal updates by other modules (verification flag, role, KYC status, wallet addresses). */
    async setFields(
      tenantId: string,
      id: string,
      changes: Partial<Pick<UserRow, 'emailVerified' | 'role' | 'kycStatus' | 'evmEoa' | 'evmCompatibleAddress' | 'xrplAddress' | 'xrplSecureAccountAddress'>>,
      db?: DbOrTx,
    ): Promise<UserRow> {
      const update = async (into: DbOrTx | undefined) => {
        const row = await repo.update(tenantId, id, { ...changes, updatedAt: clock.now() }, into);
        if (!row) throw UserErrors.notFound();
        return row;
      };
      if (!IDENTITY_FIELDS.some((field) => field in changes)) return update(db);
      const announced = async (into: DbOrTx) => {
        const row = await update(into);
        await identityChanged(tenantId, id, into);
        return row;
      };
      return db ? announced(db) : tx(announced);
    },

    /**
     * The KYC status shown on the user (the latest attempt's), as a write not yet run for the
     * KYC module's writeTogether, made only where `when` holds (the attempt is the user's latest).
     * The KYC status is no identity field: nothing to announce.
     */
    kycStatusStatement(tenantId: string, userId: string, kycStatus: UserRow['kycStatus'], when: TemplateCondition, db: DbOrTx): TemplateWrite {
      return repo.updateStatement(tenantId, userId, { kycStatus, updatedAt: clock.now() }, when, db);
    },

    /**
     * Runs `together` (the caller's writes: a new wallet's event and audit entry) in one
     * statement that also reads whether the user exists and, given `link`, shows a newly
     * registered wallet on the profile (`evmEoa`, the wallet addresses) while that field is
     * empty: the first wallet of a kind stays shown. The wallet registry calls this; it owns which
     * wallet maps to which field. One round trip, not three. Undefined when the user does not
     * exist: the writes ran all the same, so `db` must be the caller's transaction, which the
     * caller then fails. The identity root follows a field that was set.
     */
    async writeForUser(
      tenantId: string,
      userId: string,
      db: DbOrTx,
      together: SQLWrapper[],
      link?: { field: WalletAddressField; address: string },
    ): Promise<{ linked: boolean } | undefined> {
      if (!isTransaction(db)) throw new Error('writeForUser runs in the caller\'s transaction: a missing user must take its writes back');
      const writes = link ? [repo.setAddressIfEmptyStatement(tenantId, userId, link.field, link.address, clock.now(), db), ...together] : together;
      const [row] = await writeTogetherReturning(db, writes, repo.existsStatement(tenantId, userId, Boolean(link), db));
      if (!row) return undefined;
      const linked = row.linked === true;
      if (linked) await identityChanged(tenantId, userId, db);
      return { linked };
    },

    async listUsers(tenantId: string, filters: UserFilters, page: PageParams): Promise<Page<UserDto>> {
      const normalized: UserFilters = {
        email: filters.email === undefined ? undefined : normalizeEmail(filters.email),
        evmEoa: typeof filters.evmEoa === 'string' ? evmAddressForms(filters.evmEoa) : filters.evmEoa,
        xrplSecureAccountAddress: filters.xrplSecureAccountAddress?.trim(),
      };
      return paginate(
        () => repo.count(tenantId, normalized),
        () => repo.list(tenantId, normalized, page),
        toUserDto,
      );
    },

    async walletAddresses(tenantId: string, userId: string): Promise<WalletAddressesDto> {
      return walletAddressesOf(await requireUser(tenantId, userId));
    },
  };
}

export type UsersService = ReturnType<typeof createUsersService>;
export type { UserKeyColumns, UserWith } from './repo.js';
