import { AppError, CommonErrors } from '../../platform/http/errors.js';

export const EntityErrors = {
  notFound: () => new AppError(404, 'ENTITY_NOT_FOUND', 'Entity not found'),
  forbidden: (permission: string) => new AppError(403, 'ENTITY_PERMISSION_REQUIRED', `This needs the entity permission "${permission}"`),
  /** One code for every module (src/platform/http/errors.ts). */
  userNotFound: CommonErrors.userNotFound,
  memberNotFound: () => new AppError(404, 'ENTITY_MEMBER_NOT_FOUND', 'The user is not a member of the entity'),
  alreadyMember: () => new AppError(409, 'ENTITY_MEMBER_EXISTS', 'The user is already a member of the entity'),
  lastOwner: () => new AppError(409, 'ENTITY_LAST_OWNER', 'The last owner of an entity cannot be removed or lose owner'),
  leiTaken: () => new AppError(409, 'ENTITY_LEI_TAKEN', 'Another entity of the tenant has this LEI'),
  userIdRequired: () => new AppError(400, 'USER_ID_REQUIRED', 'body.userId is required with an API key or admin token'),
  leiInvalid: () => new AppError(400, 'ENTITY_LEI_INVALID', 'body.lei is not a valid ISO 17442 LEI (checksum mismatch)'),
  countryInvalid: (field: string) => new AppError(400, 'ENTITY_COUNTRY_INVALID', `${field} is not an ISO 3166-1 alpha-2 country code`),
  metadataTooLarge: (max: number) => new AppError(400, 'ENTITY_METADATA_TOO_LARGE', `metadata must serialize to at most ${max} bytes and nest at most 5 levels`),
  permissionUnknown: (value: string) => new AppError(400, 'ENTITY_PERMISSION_UNKNOWN', `Unknown permission "${value.slice(0, 40)}"`),
};

export const PaymentMethodErrors = {
  notFound: () => new AppError(404, 'PAYMENT_METHOD_NOT_FOUND', 'Payment method not found'),
  ibanInvalid: () => new AppError(400, 'PAYMENT_METHOD_IBAN_INVALID', 'details.iban is not a valid IBAN'),
  bicInvalid: () => new AppError(400, 'PAYMENT_METHOD_BIC_INVALID', 'details.bic is not a valid SWIFT/BIC code'),
  routingInvalid: () => new AppError(400, 'PAYMENT_METHOD_ROUTING_INVALID', 'details.routingNumber is not a valid ABA routing number'),
  accountInvalid: (why: string) => new AppError(400, 'PAYMENT_METHOD_ACCOUNT_INVALID', why),
  currencyInvalid: () => new AppError(400, 'PAYMENT_METHOD_CURRENCY_INVALID', 'details.currency is not an ISO 4217 currency code'),
  addressInvalid: (chain: string) => new AppError(400, 'ADDRESS_INVALID', `details.address is not a valid ${chain} address`),
  kindMismatch: () => new AppError(400, 'PAYMENT_METHOD_KIND_MISMATCH', 'details must be of the method\'s kind; a kind cannot change'),
};

export const BusinessProfileErrors = {
  notFound: () => new AppError(404, 'BUSINESS_PROFILE_NOT_FOUND', 'The entity has no business profile'),
  live: (status: string) => new AppError(409, 'BUSINESS_PROFILE_EXISTS', `The entity already has a business profile that is ${status}`),
  tinInvalid: () => new AppError(400, 'BUSINESS_PROFILE_TIN_INVALID', 'body.tin must be a nine-digit EIN (12-3456789)'),
  webhookUnauthorized: () => new AppError(401, 'WEBHOOK_SIGNATURE_INVALID', 'Unknown tenant or bad signature'),
  webhookMalformed: () => new AppError(400, 'WEBHOOK_MALFORMED', 'The webhook is not a business event'),
};
