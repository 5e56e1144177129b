import { codeSpan, oneLine } from "./text.js";

// Text a student or a server controls (a submission's name, an implementation's words, its errors
// and stderr, an MCP server's names, property names and answers) is shown as text in every format,
// by one rule per format, here:
//   Markdown: a code span. Nothing renders inside one: no link, image, autolink, heading, HTML,
//     and GitHub links no @mention, #123 or GH-123 there. In a table cell a `|` is escaped (GFM
//     reads `\|` inside code spans too, and only in tables). Our own sentences that quote such
//     text (a row's why, a diagnosis) are prose: punctuation escaped, and every word GitHub could
//     turn into a link, a mention or a reference (a backslash does not stop those) a code span.
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
 * A word GitHub (or a linkifier) could make live: a mention or an e-mail (@), a reference (#123,
 * GH-123), a scheme (https:, mailto:), a www. or dotted host name.
 */
const LIVE_WORD = /[@#]|:[^\s]|www\.|\bgh-\d|[a-z0-9-]\.[a-z]{2}/iu;

/** Our own words in a Markdown paragraph, quoting text we do not control: one line, inert. */
export function markdownProse(text: string): string {
  return prose(text, false);
}

/** The same in a Markdown table cell: no cell boundary either. */
export function markdownProseCell(text: string): string {
  return prose(text, true);
}

function prose(text: string, cell: boolean): string {
  return oneLine(text)
    .split(/( +)/)
    .map((word) => {
      if (word.trim() === "") return word;
      if (LIVE_WORD.test(word)) return cell ? codeSpan(word).replaceAll("|", "\\|") : codeSpan(word);
      return word
        .replace(/&/g, "&amp;")
        .replace(/</g, "&lt;")
        .replace(/>/g, "&gt;")
        .replace(/([\\`*_[\]|~!])/g, "\\$1");
    })
    .join("");
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
