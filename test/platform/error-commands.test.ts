import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { commands } from '../../src/cli-commands.js';
import { CLI_OPTIONS, USAGE } from '../../src/cli-usage.js';
import { BankLinkErrors } from '../../src/modules/bank-link/errors.js';

// Every message that names an operator command (`bank-link redirect-allow ...`, `provider
// configure --kind ...`) must name one that works: the command exists, and each option it
// names is one the CLI accepts and that command's usage lists. An environment setting
// (`SANDBOXES=on`) must be one the configuration reads. Issue 25: a message told operators to
// run `bank-link configure --redirect-allow`, which fails (`--secret-file is required`).

const ROOT = join(__dirname, '..', '..');
const SRC = join(ROOT, 'src');
/** The reference itself: the help text and the argument parser. */
const REFERENCE = new Set(['src/cli.ts', 'src/cli-usage.ts']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

const parsed = new Map<string, string[]>();

/** The text of every string and template literal of a file (comments are not literals). */
function literalsOf(file: string): string[] {
  const cached = parsed.get(file);
  if (cached) return cached;
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) out.push(node.text);
    else if (ts.isTemplateExpression(node)) out.push([node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join('X'));
    ts.forEachChild(node, visit);
  };
  visit(source);
  parsed.set(file, out);
  return out;
}

const COMMAND_NAMES = [...Object.keys(commands), 'mail list', 'mail show'];
const TOPS = [...new Set(COMMAND_NAMES.map((n) => n.split(' ')[0]!))];
const SUBS = new Set(COMMAND_NAMES.map((n) => n.split(' ')[1]).filter(Boolean));

/** Each command's options as its usage lists them (the signature, not the description column). */
function usageOptions(): Map<string, Set<string>> {
  const byCommand = new Map<string, Set<string>>();
  let current: Set<string> | undefined;
  for (const line of USAGE.split('\n')) {
    const indent = line.length - line.trimStart().length;
    const signature = line.trim().split(/\s{2,}/)[0] ?? '';
    const name = COMMAND_NAMES.find((n) => indent === 2 && (signature === n || signature.startsWith(`${n} `)));
    if (name) byCommand.set(name, (current = new Set()));
    else if (indent >= 40 || indent === 0) continue; // the description column, or prose
    for (const option of (indent === 2 || indent < 40 ? signature : '').matchAll(/--([a-z][a-z-]*)/g)) current?.add(option[1]!);
  }
  return byCommand;
}
const USAGE_OPTIONS = usageOptions();

export interface Mention {
  text: string;
  command: string;
  options: string[];
}

/** The commands a message names: `<command> <subcommand>` with its `--options`. */
export function mentionsIn(text: string): Mention[] {
  const re = new RegExp(`(bastion |run |with |\\()?(?<![-\\w])(${TOPS.join('|')}) ([a-z][a-z-]*)((?: +--[a-z][a-z-]*(?: +(?!--)[^\\s)'",;]+)?)*)`, 'g');
  const found: Mention[] = [];
  for (const m of text.matchAll(re)) {
    const [whole, lead, top, sub, rest = ''] = m;
    const options = [...rest.matchAll(/--([a-z][a-z-]*)/g)].map((o) => o[1]!);
    // Prose ("provider webhooks", "mail lookups") is not a command; a known subcommand, an
    // option or an imperative lead-in is.
    if (!SUBS.has(sub!) && options.length === 0 && !lead?.trim().match(/^(bastion|run)$/)) continue;
    found.push({ text: whole.replace(/^(bastion |run |with |\()/, ''), command: `${top} ${sub}`, options });
  }
  return found;
}

/** What is wrong with a mention; empty when it names a working command. */
export function problemsOf(mention: Mention): string[] {
  if (!COMMAND_NAMES.includes(mention.command)) return [`"${mention.command}" is not a command`];
  const problems: string[] = [];
  try {
    parseArgs({ args: mention.text.split(/\s+/), options: CLI_OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    problems.push(`does not parse: ${(error as Error).message}`);
  }
  const listed = USAGE_OPTIONS.get(mention.command) ?? new Set<string>();
  for (const option of mention.options) if (!listed.has(option)) problems.push(`${mention.command} takes no --${option}`);
  return problems;
}

const CONFIG_TEXT = readFileSync(join(SRC, 'config.ts'), 'utf8');

describe('commands and settings named in messages', () => {
  it('the checker refuses what was wrong and admits what works (table)', () => {
    const table: Array<[string, boolean]> = [
      ['(bank-link configure --redirect-allow)', false],
      ['(bank-link redirect-allow --tenant ID --redirect-allow URL...)', true],
      ['(provider configure --kind custody --provider custody-a)', true],
      ['run bank-link allow --tenant ID', false],
      ['(provider configure --kind custody --provider custody-a --signing-key K)', false],
      ['(idp set --tenant ID --issuer URL)', true],
      ['(business-profile review --status approved)', true],
    ];
    for (const [text, ok] of table) {
      const found = mentionsIn(text);
      expect(found, text).toHaveLength(1);
      expect(problemsOf(found[0]!).length === 0, `${text}: ${problemsOf(found[0]!).join('; ')}`).toBe(ok);
    }
    expect(mentionsIn('Routes outside tenancy (provider webhooks)')).toEqual([]);
  });

  it('the bank-link allow-list error names the command that sets the allow-list', () => {
    const found = mentionsIn(BankLinkErrors.redirectNotAllowed().message);
    expect(found.map((m) => m.command)).toEqual(['bank-link redirect-allow']);
    expect(problemsOf(found[0]!)).toEqual([]);
  });

  it('every command named in a string of src/ exists with the options it names', () => {
    const problems: string[] = [];
    let seen = 0;
    for (const file of sourceFiles(SRC)) {
      const name = relative(ROOT, file);
      if (REFERENCE.has(name)) continue;
      for (const literal of literalsOf(file)) {
        for (const mention of mentionsIn(literal)) {
          seen++;
          for (const p of problemsOf(mention)) problems.push(`${name}: "${mention.text}": ${p}`);
        }
      }
    }
    expect(problems).toEqual([]);
    // The scan finds the messages it is about (custody-a, custody-b, bank-link at least).
    expect(seen).toBeGreaterThanOrEqual(4);
  });

  it('every environment setting named in a string of src/ is one the configuration reads', () => {
    const problems: string[] = [];
    for (const file of sourceFiles(SRC)) {
      for (const literal of literalsOf(file)) {
        for (const m of literal.matchAll(/\b([A-Z][A-Z0-9_]{3,})=[a-z0-9]/g)) {
          if (!new RegExp(`\\b${m[1]}\\b`).test(CONFIG_TEXT)) problems.push(`${relative(ROOT, file)}: ${m[1]} is not read by src/config.ts`);
        }
      }
    }
    expect(problems).toEqual([]);
  });
});
