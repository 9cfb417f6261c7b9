/**
 * Example values generated from JSON schemas, for the OpenAPI document's request and answer
 * examples (openapi.ts) where no curated one is written (openapi-examples.ts). Deterministic:
 * the same schema gives the same example, so the document and the client generated from it
 * only change when a schema does. The examples are valid against their schemas (the lint's
 * `no-invalid-media-type-examples` checks it): a string with a `pattern` takes the value
 * listed for that pattern below, which a test checks against the pattern.
 */
type Json = Record<string, unknown>;

/** One valid value per pattern the routes use. A new pattern falls back to PATTERN_FALLBACK, and the lint names it. */
export const PATTERN_EXAMPLES: Record<string, string> = {
  '^[a-z0-9_]+(\\.[a-z0-9_]+)+$': 'user.created',
  '^[0-9]{6}$': '123456',
  '^([0-9]{6}|[A-Za-z2-7]{5}-?[A-Za-z2-7]{5})$': '123456',
  '^[A-Za-z0-9_-]{43}$': 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
  '^[A-Za-z]{2}$': 'US',
  '^[A-Za-z0-9_-]+$': 'c2FtcGxlLXRva2Vu',
  '^0x[0-9a-fA-F]{40}$': '0x5B38Da6a701c568545dCfcB03FcB875f56beddC4',
  '^0x([0-9a-fA-F]{2})+$': '0xdeadbeef',
  '^r[1-9A-HJ-NP-Za-km-z]{24,34}$': 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh',
  '^[0-9a-f]{32}$': '0123456789abcdef0123456789abcdef',
  '^([0-9A-Fa-f]{66})$': '0330e7fc9d56bb25d6893ba3f317ae5bcf33b3291bd63db32654a313222f7fd020',
  '^[0-9A-Fa-f]{2,300}$': '48656C6C6F',
  '^[0-9A-Fa-f]+$': '1200002280000000',
  '^[0-9a-f]{64}$': 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  '^(0x)?[0-9a-fA-F]+$': '0x02f86c',
  '^([0-9a-fA-F]{66})$': '0330e7fc9d56bb25d6893ba3f317ae5bcf33b3291bd63db32654a313222f7fd020',
  '^0x[0-9a-f]{64}$': '0x9c22ff5f21f0b81b113e63f7db6da94fedef11b2119b4088b89664fb9a3cb658',
  '\\S': 'example',
  '^[A-Z]{2}$': 'US',
  '^[A-Z0-9]{18}[0-9]{2}$': '5493001KJTIIGC8Y1R12',
  '^[A-Za-z0-9]{4,34}$': 'GB33BUKB20201555555555',
  '^[0-9]{9}$': '011000015',
  '^[A-Z]{3}$': 'USD',
  '^[0-9]{4,17}$': '000123456789',
  '^[A-Z0-9]{2,12}$': 'ETH',
  '^[0-9]{1,10}$': '42',
  '^[0-9]{2}-?[0-9]{7}$': '12-3456789',
  '^https?://': 'https://app.example.com/callback',
  '^([0-9]{1,15}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$': '42',
  '^[A-Za-z0-9_-]+={0,2}$': 'c2FtcGxl',
  '^[A-Za-z0-9]+$': 'abc123',
  '^0x([0-9a-fA-F]{2})*$': '0x',
  '^0x[0-9a-fA-F]{64}$': '0x9c22ff5f21f0b81b113e63f7db6da94fedef11b2119b4088b89664fb9a3cb658',
};
const PATTERN_FALLBACK = 'string';

const FORMAT_EXAMPLES: Record<string, string> = {
  uuid: '3fa85f64-5717-4562-b3fc-2c963f66afa6',
  'date-time': '2026-01-15T09:30:00.000Z',
  date: '1990-04-12',
  email: 'ada@example.com',
  uri: 'https://app.example.com/return',
  url: 'https://app.example.com/return',
  binary: '',
};

/** A mailed one-time code (the `code` fields of verification and 2FA bodies). */
export const MAILED_CODE = '123456';

/** Plain strings named like these take a telling value (when no format, pattern or enum applies). */
const NAMED_STRINGS: Record<string, string> = {
  email: 'ada@example.com',
  password: 'correct horse battery staple',
  newPassword: 'correct horse battery staple 2',
  currentPassword: 'correct horse battery staple',
  fullName: 'Ada Lovelace',
  firstName: 'Ada',
  lastName: 'Lovelace',
  name: 'Example',
  phone: '+14155550123',
  country: 'US',
  currency: 'USD',
  amount: '10.5',
  qty: '10.5',
  symbol: 'ETH',
  network: 'sepolia',
  reason: 'Document expired',
  description: 'Example description',
  label: 'Operating account',
  title: 'Subscription agreement',
  message: 'Done',
  code: MAILED_CODE,
  status: 'pending',
  city: 'London',
  line1: '1 Example Street',
  postalCode: 'EC1A 1BB',
  mediaType: 'application/pdf',
  tokenType: 'Bearer',
  accessToken: 'eyJhbGciOiJFUzI1NiIsImtpZCI6ImsxIn0.eyJzdWIiOiIzZmE4NWY2NCJ9.c2lnbmF0dXJl',
  refreshToken: 'rt_2p9XkR6vQ1mZ8sLw4cYt0bNj',
};

const MAX_DEPTH = 12;

function clamp(value: string, schema: Json): string {
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : undefined;
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  let out = max !== undefined ? value.slice(0, max) : value;
  while (out.length < min) out += 'x';
  return out;
}

/** Plain strings whose names end like these take a telling value. */
const NAME_ENDINGS: Array<[RegExp, string]> = [
  [/Id$/, '3fa85f64-5717-4562-b3fc-2c963f66afa6'],
  [/At$/, '2026-01-15T09:30:00.000Z'],
  [/(Url|Uri|url|uri)$/, 'https://app.example.com/return'],
  [/(^a|A)ddress$/, '0x5B38Da6a701c568545dCfcB03FcB875f56beddC4'],
  [/(^h|H)ash$/, '0x9c22ff5f21f0b81b113e63f7db6da94fedef11b2119b4088b89664fb9a3cb658'],
  [/(^t|T)oken$/, 'c2FtcGxlLXRva2Vu'],
];

/** A description that is one word (`ETH`, `WALLET`) is the value to send. */
const ONE_WORD = /^[A-Za-z0-9_.-]{1,40}$/;

function sampleString(schema: Json, name: string | undefined): string {
  if (typeof schema.format === 'string' && schema.format in FORMAT_EXAMPLES) return FORMAT_EXAMPLES[schema.format]!;
  if (typeof schema.pattern === 'string') return PATTERN_EXAMPLES[schema.pattern] ?? PATTERN_FALLBACK;
  if (typeof schema.description === 'string' && ONE_WORD.test(schema.description)) return clamp(schema.description, schema);
  const named = name === undefined ? undefined : (NAMED_STRINGS[name] ?? NAME_ENDINGS.find(([ending]) => ending.test(name))?.[1]);
  return clamp(named ?? 'string', schema);
}

function sampleNumber(schema: Json, integer: boolean): number {
  const min = typeof schema.minimum === 'number' ? schema.minimum : typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + 1 : undefined;
  const max = typeof schema.maximum === 'number' ? schema.maximum : undefined;
  let value = min ?? (max !== undefined ? Math.min(1, max) : 1);
  if (integer) value = Math.ceil(value);
  return value;
}

/**
 * An example of `schema`; `$ref`s to `#/components/schemas/...` are followed in `components`.
 * `name` is the property the value is for (telling strings); `required` lists of objects are
 * honoured, optional properties are included too (a fuller example), except past a depth.
 */
export function sampleSchema(schema: unknown, components: Record<string, unknown> = {}, name?: string, depth = 0): unknown {
  if (!schema || typeof schema !== 'object') return null;
  const s = schema as Json;
  if (typeof s.$ref === 'string') {
    const target = components[s.$ref.replace('#/components/schemas/', '')];
    return sampleSchema(target, components, name, depth + 1);
  }
  if ('example' in s) return s.example;
  if (Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0];
  if ('const' in s) return s.const;
  if ('default' in s && s.default !== undefined) return s.default;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  const alternatives = (s.anyOf ?? s.oneOf) as Json[] | undefined;
  if (Array.isArray(alternatives) && alternatives.length > 0) {
    const chosen = alternatives.find((alt) => alt.type !== 'null') ?? alternatives[0];
    return sampleSchema(chosen, components, name, depth + 1);
  }
  if (Array.isArray(s.allOf)) {
    return Object.assign({}, ...s.allOf.map((part) => sampleSchema(part, components, name, depth + 1) as object));
  }
  const type = Array.isArray(s.type) ? (s.type as string[]).find((t) => t !== 'null') : (s.type as string | undefined);
  switch (type) {
    case 'string':
      return sampleString(s, name);
    case 'integer':
      return sampleNumber(s, true);
    case 'number':
      return sampleNumber(s, false);
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'array': {
      if (depth > MAX_DEPTH) return [];
      const count = Math.max(1, typeof s.minItems === 'number' ? s.minItems : 1);
      const item = sampleSchema(s.items, components, undefined, depth + 1);
      if (s.uniqueItems && count === 1) return [item];
      return Array.from({ length: count }, () => item);
    }
    case 'object':
    default: {
      const properties = (s.properties ?? {}) as Record<string, unknown>;
      const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
      const out: Json = {};
      for (const [key, sub] of Object.entries(properties)) {
        if (depth > MAX_DEPTH && !required.has(key)) continue;
        out[key] = sampleSchema(sub, components, key, depth + 1);
      }
      if (Object.keys(properties).length === 0 && typeof s.minProperties === 'number' && s.minProperties > 0 && s.additionalProperties) {
        out.key = sampleSchema(s.additionalProperties, components, 'key', depth + 1);
      }
      return out;
    }
  }
}
