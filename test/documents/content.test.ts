import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkPdf, includesAt } from '../../src/modules/documents/content.js';
import { makePdf } from './fixtures.js';

const NEEDLE = Buffer.from('/Encrypt', 'latin1');
const ANCHOR = 1; // 'E'

/** includesAt must answer what Buffer#includes answers, whatever the bytes. */
function same(bytes: Buffer): void {
  expect(includesAt(bytes, NEEDLE, ANCHOR)).toBe(bytes.includes(NEEDLE));
}

describe('includesAt (the PDF check\'s search for /Encrypt)', () => {
  it('answers as Buffer#includes on random bytes, with and without the needle at every kind of place', () => {
    for (let round = 0; round < 200; round++) {
      const bytes = randomBytes(1 + Math.floor(Math.random() * 4096));
      same(bytes);
      const at = Math.floor(Math.random() * Math.max(1, bytes.length - NEEDLE.length));
      if (bytes.length >= NEEDLE.length) {
        NEEDLE.copy(bytes, at);
        same(bytes);
      }
    }
  });

  it('finds the needle at the very start and the very end, and not a cut one', () => {
    same(Buffer.from('/Encrypt', 'latin1'));
    same(Buffer.from('xx/Encrypt', 'latin1'));
    same(Buffer.from('/Encrypt and more', 'latin1'));
    same(Buffer.from('xx/Encryp', 'latin1'));
    same(Buffer.from('Encrypt', 'latin1'));
    same(Buffer.from('E', 'latin1'));
    same(Buffer.alloc(0));
    same(Buffer.from('//EEncrypt /EEncrypt /Encrypt', 'latin1'));
    expect(includesAt(Buffer.from('xx/Encryp', 'latin1'), NEEDLE, ANCHOR)).toBe(false);
    expect(includesAt(Buffer.from('xx/Encrypt', 'latin1'), NEEDLE, ANCHOR)).toBe(true);
  });

  it('hands over to Buffer#includes after many anchor bytes, and still finds what lies beyond them', () => {
    // 'E' everywhere: the anchor hits on every byte; the needle sits far past the checks' limit.
    const bytes = Buffer.alloc(1 << 20, 'E');
    expect(includesAt(bytes, NEEDLE, ANCHOR)).toBe(false);
    NEEDLE.copy(bytes, bytes.length - 100_000);
    expect(includesAt(bytes, NEEDLE, ANCHOR)).toBe(true);
    const early = Buffer.alloc(1 << 16, 'E');
    NEEDLE.copy(early, 10);
    expect(includesAt(early, NEEDLE, ANCHOR)).toBe(true);
  });

  it('answers as Buffer#includes on a MiB of random bytes (an anchor byte in 256), with the needle anywhere or nowhere', () => {
    const bytes = randomBytes(1 << 20);
    bytes.fill(0x41, 0, 8); // no accidental needle at the start
    same(bytes);
    for (const at of [0, 1000, bytes.length >> 1, bytes.length - NEEDLE.length]) {
      const copy = Buffer.from(bytes);
      NEEDLE.copy(copy, at);
      same(copy);
    }
  });

  it('hands over after many compares of near misses (first, anchor and last bytes matching), and still finds what lies beyond', () => {
    // '/E' and 't' at the needle's places, 200 bytes apart: sparse anchors, each one compared.
    const unit = Buffer.alloc(200, 0x20);
    Buffer.from('/Exxxxxt', 'latin1').copy(unit, 0);
    const bytes = Buffer.concat(Array.from({ length: 6000 }, () => unit));
    expect(includesAt(bytes, NEEDLE, ANCHOR)).toBe(false);
    NEEDLE.copy(bytes, bytes.length - 50);
    expect(includesAt(bytes, NEEDLE, ANCHOR)).toBe(true);
    same(bytes);
  });

  it('leaves the PDF check as it was: an encrypted PDF refused, a plain one accepted', () => {
    expect(() => checkPdf(makePdf({ encrypted: true }))).toThrow(expect.objectContaining({ code: 'DOCUMENT_PDF_ENCRYPTED' }));
    expect(() => checkPdf(makePdf())).not.toThrow();
  });
});
