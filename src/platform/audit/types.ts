/**
 * Every audit event type the service writes, with what it records: the one list, as the error
 * codes have theirs (src/platform/http/error-catalogue.ts) and the outbox events theirs
 * (src/platform/events/payloads.ts). The audit writer (`audit.record`, `audit.statement`,
 * src/modules/audit/service.ts) takes only these types (a type error otherwise) and refuses any
 * other at run time; test/audit/audit-types.test.ts checks that each is written somewhere and
 * that every type src writes is here. A new event is one line here.
 *
 * The names are `<object>.<what happened>` in lower case (the audit routes' `type` filter
 * pattern). The types of a tracked object's history (`objectType` kyc, accreditation, transfer) are
 * the steps its history answers.
 */
export const AUDIT_TYPES = {
  // Authentication and sessions (src/modules/auth)
  'user.registered': 'A user registered (password, or a first external-IdP login)',
  'login.succeeded': 'A login completed (password, second factor, passkey or external IdP) and a session started',
  'login.failed': 'A login was refused (wrong credentials, a passkey assertion or an IdP answer that does not verify)',
  'login.second_factor_required': 'The password was right; the login waits for the second factor (emailed code or authenticator app)',
  'login.second_factor_failed': 'A second-factor code was wrong or expired',
  'refresh.reused': 'A refresh token was presented again after its rotation: the session family was revoked',
  'password.changed': 'The password was changed (by the user, or by a reset)',
  '2fa.enabled': 'Two-factor authentication was enabled (details.method email or totp; details.replaced the method it replaced)',
  '2fa.disabled': 'Two-factor authentication was disabled',
  '2fa.disable_failed': 'Disabling, switching or renewing recovery codes of two-factor authentication was refused (wrong password)',
  '2fa.recovery_code_used': 'A TOTP recovery code was spent to sign in (details.remaining: unused codes left); the user is mailed',
  '2fa.recovery_codes_regenerated': 'New TOTP recovery codes replaced the old set (password confirmed)',
  'token.minted': "A token pair was minted for a user by the tenant's API key",
  'session.revoked': 'A session was ended (logout, or ended by its user, an admin or an API key; details name the reason)',
  'api_key.created': 'An API key was created over the API (details: scopes, expiry)',
  'api_key.revoked': 'An API key was revoked over the API',
  'api_key.rotated': 'An API key was rotated: a new key, the old one valid until the overlap ends',
  'passkey.registered': 'A passkey (WebAuthn credential) was registered to the user',
  'passkey.removed': "A passkey was removed from the user's account",
  'passkey.clone_suspected': "A passkey login was refused: the authenticator's signature counter did not advance (a cloned authenticator)",
  'idp.linked': 'An external IdP identity was linked to an existing user',

  // Tracked objects' histories (objectType and objectId set)
  'kyc.transition': "A KYC attempt's status changed",
  'kyc.update': "A KYC attempt's fields changed without a status change",
  'accreditation.transition': "An accreditation claim's status changed",

  // Wallets, custody and transfers
  'wallet.registered': 'A wallet was registered in the registry (any kind)',
  'custody.vault_created': 'A custodial vault and its wallets were created at custody-a',
  'custody.wallet_updated': "A custody wallet's name or description changed",
  'custody.transaction_submitted': 'A custody-a transaction was submitted',
  'custody.transaction_updated': "A custody-a transaction's status changed",
  'custody_b.user_registered': 'A user was registered at custody-b',
  'custody_b.signature': 'custody-b signed a message or transaction for a wallet',
  'transfer.submitted': 'A transfer was submitted (non-custodial EVM, custody-b broadcast, XRPL submission)',
  'transfer.updated': "A transfer's status changed (confirmed, failed, expired)",

  // Documents
  'document.uploaded': 'A document was stored (upload or import from a URL)',
  'document.updated': "A document's metadata changed",
  'document.deleted': 'A document was deleted',
  'document.signed': 'A user signed a tenant document with a wallet',

  // Entities
  'entity.created': 'An entity was created, its owner holding every permission',
  'entity.metadata_replaced': "An entity's metadata was replaced",
  'entity.member_added': 'A user was added to an entity',
  'entity.member_removed': 'A user left or was removed from an entity',
  'entity.permission_granted': 'A member was granted an entity permission',
  'entity.permission_revoked': "A member's entity permission was revoked",
  'entity.payment_method_added': 'A manual payment method was added to an entity',
  'entity.payment_method_updated': 'A manual payment method was changed or archived',
  'entity.business_profile_submitted': 'A business profile was submitted to the provider',
  'entity.business_profile_updated': "A business profile's status changed at the provider",

  // Bank linking
  'bank_link.item_linked': 'A bank account was linked',
  'bank_link.item_removed': 'A linked bank account was removed',
  'bank_link.originator_created': 'A payment originator was created',
  'bank_link.kyb_started': "An originator's business verification was started",

  // Event endpoints
  'event_endpoint.created': 'A webhook endpoint was created',
  'event_endpoint.updated': 'A webhook endpoint was changed',
  'event_endpoint.deleted': 'A webhook endpoint was deleted',
  'event_endpoint.secret_rotated': "A webhook endpoint's signing secret was rotated",
  'event_endpoint.replayed': 'Events were queued again for a webhook endpoint',
  'event_endpoint.disabled': 'A webhook endpoint was disabled after failing deliveries',
  'event_endpoint.tested': 'A test event was queued for one webhook endpoint',
  'event_endpoint.delivery_retried': 'One delivery to a webhook endpoint was made due at once',
} as const;

export type AuditType = keyof typeof AUDIT_TYPES;

export function isAuditType(value: string): value is AuditType {
  return Object.hasOwn(AUDIT_TYPES, value);
}
