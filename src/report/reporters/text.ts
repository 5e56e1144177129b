// Text from a subject (its answers, its errors, its stderr, its handshake) is untrusted: it may hold
// terminal escape sequences, characters XML cannot carry, invisible characters that make two
// different texts read the same, or lines a CI runner would obey. Every reporter shows such text
// through these functions: nothing is dropped, everything invisible is shown as an escape.

/** Characters shown as escapes: controls, format characters (zero-width, bidi, BOM, tags), lone surrogates, separators other than the space, U+FFFE and U+FFFF. */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Z}\uFFFE\uFFFF]/gu;

export interface VisibleOptions {
  /** Keep line feeds as line breaks (default true); otherwise shown as `\n`. */
  newlines?: boolean;
  /** Keep tabs (default true); otherwise shown as `\t`. */
  tabs?: boolean;
}

/**
 * The text with every invisible or unsafe character shown as an escape: `\u0000`, `\u001b`,
 * `\u200b`, `\u{e0041}`; `\r` as `\r`, and `\n` and `\t` too unless kept. Plain spaces and visible
 * characters stay as they are.
 */
export function visible(text: string, options: VisibleOptions = {}): string {
  const keepNewlines = options.newlines ?? true;
  const keepTabs = options.tabs ?? true;
  return text.replace(INVISIBLE, (char) => {
    if (char === " ") return char;
    if (char === "\n") return keepNewlines ? char : "\\n";
    if (char === "\t") return keepTabs ? char : "\\t";
    if (char === "\r") return "\\r";
    const code = char.codePointAt(0)!;
    return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}

/** One line: every character visible, line breaks and tabs shown as `\n` and `\t`. */
export function oneLine(text: string): string {
  return visible(text, { newlines: false, tabs: false });
}

/**
 * Output a GitHub Actions runner would read as a workflow command made harmless: `::` at the start
 * of a line (after any white space: the runner trims it) and the legacy `##[` anywhere have their
 * first character shown as an escape (`\u003a:error`, `\u0023#[`). Apply to whole output, after
 * `visible` (which leaves no escape sequence but the colours the reporter adds itself).
 */
export function noWorkflowCommands(text: string): string {
  // our own colour codes (SGR) may stand before the colons: a runner that strips them would see a command
  return text.replace(/^((?:\s|\u001b\[[0-9;]*m)*):(?=:)/gmu, "$1\\u003a").replaceAll("##[", "\\u0023#[");
}

/** Text for a terminal or a CI log: visible, and no workflow command. */
export function forLog(text: string): string {
  return noWorkflowCommands(visible(text));
}

/**
 * At most `max` characters (code points are never split), with a note of what was cut:
 * `abc… (1,234 more characters)`.
 */
export function clipText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end)}… (${(text.length - end).toLocaleString("en-US")} more characters)`;
}

/** Bytes of a text in UTF-8. */
export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** A word for the shell: as is when safe, else in single quotes. */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_./:=@%+,-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** A Markdown table: the first row is the header; a `|` inside a cell is escaped. */
export function markdownTable(table: string[][]): string[] {
  const escape = (text: string) => text.replaceAll("|", "\\|");
  return [
    `| ${table[0]!.map(escape).join(" | ")} |`,
    `| ${table[0]!.map(() => "---").join(" | ")} |`,
    ...table.slice(1).map((row) => `| ${row.map(escape).join(" | ")} |`),
  ];
}

/** Text as a Markdown code span, whatever backticks it holds (a fence longer than any run inside). */
export function codeSpan(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  const pad = text.startsWith("`") || text.endsWith("`") || text === "" ? " " : "";
  return `${fence}${pad}${text}${pad}${fence}`;
}
