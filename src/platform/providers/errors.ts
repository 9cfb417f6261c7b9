import type { ErrorCode, ErrorStatus } from '../http/error-catalogue.js';
import { AppError } from '../http/errors.js';

/** Why a call to a provider failed; each reason has one HTTP status (PROVIDER_STATUS). */
export type ProviderErrorReason = 'not_configured' | 'unreachable' | 'refused' | 'unauthorized' | 'not_found' | 'malformed_answer';

/**
 * The one status of each reason, applied by the error handler: not configured and unreachable
 * are 503 with Retry-After (try later), the provider's refusal, a credential it does not take
 * and an answer of the wrong shape are 502 (the fault is upstream), an object it does not know
 * is 404.
 */
export const PROVIDER_STATUS: Record<ProviderErrorReason, number> = {
  not_configured: 503,
  unreachable: 503,
  refused: 502,
  unauthorized: 502,
  not_found: 404,
  malformed_answer: 502,
};

const RETRY_AFTER: Partial<Record<ProviderErrorReason, string>> = { not_configured: '60', unreachable: '5' };

/** The code of a reason when the provider's definition names none of its own. */
export const PROVIDER_CODE: Record<ProviderErrorReason, ErrorCode> = {
  not_configured: 'PROVIDER_NOT_CONFIGURED',
  unreachable: 'PROVIDER_UNAVAILABLE',
  refused: 'PROVIDER_REFUSED',
  unauthorized: 'PROVIDER_UNAUTHORIZED',
  not_found: 'PROVIDER_NOT_FOUND',
  malformed_answer: 'PROVIDER_ERROR',
};

/**
 * The one error an adapter throws. `status` and `providerCode` are what the provider said (0
 * when it was not reached). The providers service fills `kind`, `provider` and `code` (from the
 * definition's `codes`) as the error leaves the port; the error handler answers it.
 */
export class ProviderError extends Error {
  kind?: string;
  provider?: string;
  code?: string;

  constructor(
    readonly reason: ProviderErrorReason,
    message: string,
    readonly status = 0,
    readonly providerCode?: string,
  ) {
    super(message);
    this.name = 'ProviderError';
  }

  /** "Not configured": one code and one status for every kind, the kind named in the message. */
  static notConfigured(kind: string, provider?: string, why = 'the built-in sandbox is off or there is none'): ProviderError {
    const error = new ProviderError(
      'not_configured',
      `${kind} is not configured for this tenant (provider configure --kind ${kind}${provider ? ` --provider ${provider}` : ''}) and ${why}`,
    );
    error.kind = kind;
    if (provider) error.provider = provider;
    return error;
  }

  /** A provider's HTTP status as a reason: 401/403 unauthorized, 404 not found, other 4xx refused, 5xx unreachable. */
  static fromStatus(status: number, message: string, providerCode?: string): ProviderError {
    const reason: ProviderErrorReason =
      status === 0 || status >= 500 ? 'unreachable' : status === 401 || status === 403 ? 'unauthorized' : status === 404 ? 'not_found' : 'refused';
    return new ProviderError(reason, message, status, providerCode);
  }
}

/** The answer of a provider error: its reason's status, its code, Retry-After where the reason asks for a retry. */
export function providerErrorAnswer(error: ProviderError): AppError {
  const code = (error.reason === 'not_configured' ? PROVIDER_CODE.not_configured : (error.code ?? PROVIDER_CODE[error.reason])) as ErrorCode;
  const retryAfter = RETRY_AFTER[error.reason];
  // The catalogue lists each provider code with its reason's status (test/platform/error-catalogue.test.ts checks it).
  return new AppError(PROVIDER_STATUS[error.reason] as ErrorStatus<ErrorCode>, code, error.message, retryAfter ? { 'retry-after': retryAfter } : undefined);
}

/**
 * The provider does not know the object: the module's own 404 for it (e.g. its
 * TRANSFER_NOT_FOUND) instead of the generic provider one. Every other reason passes through.
 */
export async function notFoundAs<T>(work: Promise<T>, notFound: () => Error): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof ProviderError && error.reason === 'not_found') throw notFound();
    throw error;
  }
}
