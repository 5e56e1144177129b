import { codeSpan, oneLine } from "./text.js";

// Text a student controls (a submission's name, an implementation's words, its errors and stderr)
// is shown as text in every format, by one rule per format, here:
//   Markdown: a code span. Nothing renders inside one: no link, image, autolink, heading, HTML,
//     and GitHub links no @mention there. In a table cell a `|` is escaped (GFM reads `\|` inside
//     code spans too, and only in tables).
//   CSV: RFC 4180 quoting, and a cell a spreadsheet could read as a formula, however it starts
//     (after spaces, with a fullwidth ＝), starts with ' instead.

/** Student text in a Markdown paragraph or heading: one line, inert. */
export function markdownText(text: string): string {
  const line = oneLine(text);
  return line === "" ? "" : codeSpan(line);
}

/** Student text in a Markdown table cell: inert, and no cell boundary. */
export function markdownCell(text: string): string {
  return markdownText(text).replaceAll("|", "\\|");
}

/**
 * Characters a spreadsheet reads as the start of a formula (= + - @, tab, CR), in ASCII and
 * fullwidth, after any white space (spreadsheets trim it, with the fullwidth and no-break spaces).
 */
const FORMULA_START = /^[\s\u3000\u00a0\ufeff]*[=+\-@\t\r\uff1d\uff0b\uff0d\uff20]/u;

/** A CSV cell: quoted when it must be, never a formula (a plain number, -3.5 included, stays a number). */
export function csvCell(value: string): string {
  const safe = FORMULA_START.test(value) && !/^-?\d+(\.\d+)?$/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}
