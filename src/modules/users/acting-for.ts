import type { Viewer } from '../../platform/http/access.js';
import type { AppError } from '../../platform/http/errors.js';
import { UserErrors } from './errors.js';

/**
 * The own-record rule, in one place: whose record a call acts for. A plain user acts for
 * itself, and naming another user is 404 USER_NOT_FOUND (ids cannot be probed); an API key or
 * an admin acts for the user it names (an admin defaults to itself). With no user to act for
 * (an API key naming none) the route's own `userIdRequired` error answers.
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
