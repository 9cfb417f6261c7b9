/**
 * The ```sh blocks of a markdown file (README.md's walkthrough, docs/operations.md): the
 * commands a test runs. A block left out carries `<!-- walkthrough: not run (reason) -->` on
 * the line before its fence; a fence with no language is refused (nothing skipped by omission).
 */
const NOT_RUN = /^<!-- walkthrough: not run \((.+)\) -->$/;
/** Fenced blocks in another language than sh are examples, not commands; a bare fence is ambiguous. */
const NOT_COMMANDS = new Set(['json', 'js', 'ts', 'text', 'http']);

export interface ReadmeBlock {
  /** 1-based line of the block's first command in the file. */
  line: number;
  section: string;
  code: string;
  notRun?: string;
}

/** The ```sh blocks of a markdown text in order; throws on a fence that is neither sh nor a known example language. */
export function shBlocks(markdown: string, file = 'README.md'): ReadmeBlock[] {
  const lines = markdown.split('\n');
  const blocks: ReadmeBlock[] = [];
  let section = '(top)';
  for (let i = 0; i < lines.length; i++) {
    const fence = /^```(\S*)\s*$/.exec(lines[i]!);
    if (!fence) {
      if (/^#{1,3} /.test(lines[i]!)) section = lines[i]!;
      continue;
    }
    const lang = fence[1]!;
    const start = i + 1;
    do i++;
    while (i < lines.length && !/^```\s*$/.test(lines[i]!));
    if (i >= lines.length) throw new Error(`${file}:${start}: the code fence is never closed`);
    if (lang !== 'sh') {
      if (!NOT_COMMANDS.has(lang)) throw new Error(`${file}:${start}: a code block without a language (or "${lang}"): fence it as sh (run by this test) or as one of ${[...NOT_COMMANDS].join(', ')}`);
      continue;
    }
    const notRun = NOT_RUN.exec(lines[start - 2] ?? '')?.[1];
    blocks.push({ line: start + 1, section, code: lines.slice(start, i).join('\n'), ...(notRun ? { notRun } : {}) });
  }
  return blocks;
}

