import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/platform/http/errors.js';
import { subjectFor } from '../../src/modules/users/acting-for.js';

const required = () => new AppError(400, 'USER_ID_REQUIRED', 'userId is required');
const codeOf = (work: () => unknown): string | undefined => {
  try {
    work();
  } catch (error) {
    return (error as AppError).code;
  }
  return undefined;
};

describe('the own-record rule (subjectFor)', () => {
  const me = 'u-me';
  const other = 'u-other';

  it('a plain user acts for itself, named or not; naming another user is USER_NOT_FOUND', () => {
    const user = { userId: me, privileged: false };
    expect(subjectFor(user, undefined, required)).toBe(me);
    expect(subjectFor(user, me, required)).toBe(me);
    expect(codeOf(() => subjectFor(user, other, required))).toBe('USER_NOT_FOUND');
  });

  it('an admin acts for the user it names, else for itself', () => {
    const admin = { userId: me, privileged: true };
    expect(subjectFor(admin, other, required)).toBe(other);
    expect(subjectFor(admin, undefined, required)).toBe(me);
  });

  it("an API key acts for the user it names; naming none is the route's own error", () => {
    const key = { privileged: true };
    expect(subjectFor(key, other, required)).toBe(other);
    expect(codeOf(() => subjectFor(key, undefined, required))).toBe('USER_ID_REQUIRED');
  });
});
