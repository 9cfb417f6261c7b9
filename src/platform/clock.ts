import { v7 as uuidv7 } from 'uuid';

/** Time comes from here, so tests move the clock instead of sleeping. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock for tests: starts at `start` and moves only when told. */
export class ManualClock implements Clock {
  private current: number;
  constructor(start: Date = new Date()) {
    this.current = start.getTime();
  }
  now(): Date {
    return new Date(this.current);
  }
  advance(ms: number): void {
    this.current += ms;
  }
  set(date: Date): void {
    this.current = date.getTime();
  }
}

/** Time-ordered UUIDv7, the id of every row: keyset paging follows creation order. */
export function newId(): string {
  return uuidv7();
}
