import type { Viewer } from '../../platform/http/context.js';
import type { AppError } from '../../platform/http/errors.js';
import { UserErrors } from './errors.js';

/**
 * The own-record rule, in one place, with one answer: a user acts for itself; an API key or
 * an admin acts for the user it names (an admin defaults to itself); a plain user naming
 * another user's record gets 404 (as the spec answers for another tenant's objects: ids cannot
 * be probed). With no user to act for (an API key naming none) the route's own
 * `userIdRequired` error answers. `viewer` is the call context (`ctx`).
 */
export function subjectFor(viewer: Viewer, requested: string): string;
export function subjectFor(viewer: Viewer, requested: string | undefined, userIdRequired: () => AppError): string;
export function subjectFor(viewer: Viewer, requested: string | undefined, userIdRequired?: () => AppError): string {
  if (viewer.privileged) {
    const chosen = requested ?? viewer.userId;
    if (!chosen) throw userIdRequired!();
    return chosen;
  }
  if (viewer.userId === undefined || (requested !== undefined && requested !== viewer.userId)) throw UserErrors.notFound();
  return viewer.userId;
}

/**
 * The same rule for a stored record (a vault, a document, a KYC attempt): the caller sees its
 * own, a privileged caller any of the tenant's; anything else, like a missing row, is the
 * module's own 404 (`notFound`), so another user's record and no record answer alike.
 */
export function ownedBy<R extends { userId: string | null }>(viewer: Viewer, row: R | undefined | null, notFound: () => AppError): R {
  if (!row || (!viewer.privileged && (viewer.userId === undefined || row.userId !== viewer.userId))) throw notFound();
  return row;
}
