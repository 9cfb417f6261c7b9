import { AppError } from '../http/errors.js';

const UNCHANGED = new WeakSet<AppError>();

/**
 * Marks an error as raised before the work changed anything (no row written, no provider or
 * chain asked): an idempotency key whose request ends in it is given back, so the corrected
 * retry under the same key runs. Returns the error, to throw it.
 */
export function changedNothing<E extends AppError>(error: E): E {
  UNCHANGED.add(error);
  return error;
}

/** True when `error` is an AppError marked by changedNothing (or thrown inside beforeEffects). */
export function isUnchanged(error: unknown): boolean {
  return error instanceof AppError && UNCHANGED.has(error);
}

/**
 * Runs the checks an idempotent operation makes before its first effect (validation, lookups,
 * permission): any AppError they throw is marked changedNothing. Everything after the first
 * effect stays outside, so a 4xx there is a final answer, stored and replayed.
 */
export async function beforeEffects<T>(checks: () => T | Promise<T>): Promise<T> {
  try {
    return await checks();
  } catch (error) {
    if (error instanceof AppError) changedNothing(error);
    throw error;
  }
}
