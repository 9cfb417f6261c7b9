import { randomBytes } from 'node:crypto';

/** The provider's error body, with its HTTP status. */
export interface SandboxError {
  status: number;
  body: {
    error_type: string;
    error_code: string;
    error_message: string;
    display_message: string | null;
    request_id: string;
  };
}

export const requestId = (): string => randomBytes(8).toString('base64url').slice(0, 11);

const err = (status: number, type: string, code: string, message: string): SandboxError => ({
  status,
  body: { error_type: type, error_code: code, error_message: message, display_message: null, request_id: requestId() },
});

/** The errors the sandbox answers, with the provider's types, codes and statuses. */
export const SandboxErrors = {
  invalidBody: () => err(400, 'INVALID_REQUEST', 'INVALID_BODY', 'body could not be parsed as JSON'),
  missingFields: (fields: string[]) => err(400, 'INVALID_REQUEST', 'MISSING_FIELDS', `the following required fields are missing: ${fields.join(', ')}`),
  invalidField: (message: string) => err(400, 'INVALID_REQUEST', 'INVALID_FIELD', message),
  unknownFields: (fields: string[]) => err(400, 'INVALID_REQUEST', 'UNKNOWN_FIELDS', `the following fields are not recognized by this endpoint: ${fields.join(', ')}`),
  invalidApiKeys: () => err(400, 'INVALID_INPUT', 'INVALID_API_KEYS', 'invalid client_id or secret provided'),
  invalidPublicToken: () => err(400, 'INVALID_INPUT', 'INVALID_PUBLIC_TOKEN', 'provided public token is expired, already used, or not valid'),
  invalidLinkToken: () => err(400, 'INVALID_INPUT', 'INVALID_LINK_TOKEN', 'provided link token is expired or not valid'),
  invalidAccessToken: () => err(400, 'INVALID_INPUT', 'INVALID_ACCESS_TOKEN', 'provided access token is in an invalid format or does not exist'),
  itemLoginRequired: () => err(400, 'ITEM_ERROR', 'ITEM_LOGIN_REQUIRED', "the login details of this item have changed (credentials, MFA, or required user action) and a user login is required to update this information"),
  invalidInstitution: () => err(400, 'INVALID_INPUT', 'INVALID_INSTITUTION', 'invalid institution_id provided'),
  originatorNotFound: () => err(400, 'INVALID_INPUT', 'ORIGINATOR_NOT_FOUND', 'the originator_client_id does not belong to this client'),
  keyNotFound: () => err(400, 'INVALID_INPUT', 'INVALID_WEBHOOK_VERIFICATION_KEY_ID', 'invalid key_id provided'),
  notFound: () => err(404, 'INVALID_REQUEST', 'NOT_FOUND', 'the requested endpoint does not exist'),
};
