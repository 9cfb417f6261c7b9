import type { UsersService } from '../users/service.js';
import type { IdentitySource } from './service.js';

/** The user's own leaves: its id (binding the tree to the user) and its registered wallet addresses. */
export function userIdentitySource(users: UsersService): IdentitySource {
  return {
    read: (tenantId, userId) => users.identityJson(tenantId, userId),
    fields(read) {
      const row = read as { id: string; evmEoa: string | null; evmCompatibleAddress: string | null; xrplAddress: string | null; xrplSecureAccountAddress: string | null } | null;
      if (!row) return {};
      return {
        'user.id': row.id,
        'wallet.evmEoa': row.evmEoa,
        'wallet.evmCompatible': row.evmCompatibleAddress,
        'wallet.xrplAddress': row.xrplAddress,
        'wallet.xrplSecureAccount': row.xrplSecureAccountAddress,
      };
    },
  };
}
