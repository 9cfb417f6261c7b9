import type { UsersService } from '../users/service.js';
import type { IdentitySource } from './service.js';

/** The user's own leaves: its id (binding the tree to the user) and its registered wallet addresses. */
export function userIdentitySource(users: UsersService): IdentitySource {
  return async (tenantId, userId, db) => {
    const row = await users.findRow(tenantId, userId, db);
    if (!row) return {};
    return {
      'user.id': row.id,
      'wallet.evmEoa': row.evmEoa,
      'wallet.evmCompatible': row.evmCompatibleAddress,
      'wallet.xrplAddress': row.xrplAddress,
      'wallet.xrplSecureAccount': row.xrplSecureAccountAddress,
    };
  };
}
