// Every table of the service, for Drizzle's typed API and drizzle-kit.
export * from '../../modules/tenants/table.js';
export * from '../../modules/users/table.js';
export * from '../../modules/audit/table.js';
export * from '../events/table.js';
export * from './counters-table.js';
export * from '../crypto/table.js';
export * from '../../modules/auth/table.js';
export * from '../mail/table.js';
export * from '../../modules/kyc/table.js';
export * from '../../modules/identity/table.js';
export * from '../../modules/accreditations/table.js';
export * from '../../modules/auth/idp/table.js';
export * from '../../modules/bank-link/table.js';
export * from '../../providers/bank-link/plaid/sandbox/table.js';
