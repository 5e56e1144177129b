// Command templates for `grade`: `--build` and `--subject` name the submission through
// placeholders, replaced for each submission by a word the shell reads back exactly, whatever the
// folder is called (spaces, quotes, `$`, a leading dash).
//
//   {dir}   the submission's folder, as an absolute path
//   {name}  the submission's folder name (its line in the class table)
//   {{ }}   a literal { or }
//
// A placeholder is quoted for where it stands: bare, inside "…" or inside '…'. Any other
// `{word}` is refused (a misspelt {dri} would otherwise reach the shell as text); `${VAR}` is the
// shell's and stays as it is.

export const PLACEHOLDERS = ["dir", "name"] as const;
export type Placeholder = (typeof PLACEHOLDERS)[number];
export type Values = Record<Placeholder, string>;

/** A template that cannot be used: the message is one line for the user. */
export class TemplateError extends Error {
  override name = "TemplateError";
}

type Quote = "none" | "single" | "double";
type Part = { text: string } | { placeholder: Placeholder; quote: Quote };

export interface Template {
  readonly source: string;
  /** The placeholders it uses, in order of first use. */
  readonly uses: Placeholder[];
  /** The command for one submission. */
  fill(values: Values): string;
}

/** Parses a command template; `flag` names it in errors (`--subject`). */
export function parseTemplate(source: string, flag: string): Template {
  const parts: Part[] = [];
  let text = "";
  let quote: Quote = "none";
  // where the current quote opened, and the command substitutions open around this point
  let quoteStart = -1;
  const substitutions: number[] = [];
  let backtick = false;
  for (let i = 0; i < source.length; i++) {
    const char = source[i]!;
    if (quote !== "single") {
      // the "(" of "$(" comes next and counts itself: the substitution starts at -1
      if (char === "$" && source[i + 1] === "(") substitutions.push(-1);
      else if (char === "(" && substitutions.length > 0) substitutions[substitutions.length - 1]!++;
      else if (char === ")" && substitutions.length > 0) {
        if (substitutions[substitutions.length - 1]! > 0) substitutions[substitutions.length - 1]!--;
        else substitutions.pop();
      } else if (char === "`" && source[i - 1] !== "\\") backtick = !backtick;
    }
    // the shell's own quoting decides how a placeholder must be written where it stands
    if (quote === "single") {
      if (char === "'") quote = "none";
    } else if (char === "\\" && i + 1 < source.length && source[i + 1] !== "{" && source[i + 1] !== "}") {
      text += char + source[i + 1]!;
      i++;
      continue;
    } else if (char === "'" && quote === "none") {
      quote = "single";
      quoteStart = i;
    } else if (char === '"') {
      quote = quote === "double" ? "none" : "double";
      if (quote === "double") quoteStart = i;
    }
    if ((char === "{" || char === "}") && source[i + 1] === char) {
      text += char;
      i++;
      continue;
    }
    if (char === "{") {
      const match = /^\{([A-Za-z_][A-Za-z0-9_]*)\}/.exec(source.slice(i));
      if (match && source[i - 1] !== "$") {
        const word = match[1]!;
        if (!(PLACEHOLDERS as readonly string[]).includes(word)) {
          throw new TemplateError(`${flag}: unknown placeholder {${word}} (known: ${PLACEHOLDERS.map((p) => `{${p}}`).join(", ")}; write {{ and }} for literal braces)`);
        }
        const before = source.slice(0, quote === "none" ? i : quoteStart);
        if (substitutions.length > 0 || backtick || rereadBy(before)) {
          throw new TemplateError(`${flag}: {${word}} stands inside a nested shell (sh -c '…'), eval or a command substitution ($(…), \`…\`), where the shell reads it a second time and a folder name could run as a command; pass it as an argument instead, e.g. sh -c 'cd "$1" && make' sh {${word}}`);
        }
        if (text) parts.push({ text });
        text = "";
        parts.push({ placeholder: word as Placeholder, quote });
        i += match[0].length - 1;
        continue;
      }
    }
    text += char;
  }
  if (quote !== "none") throw new TemplateError(`${flag}: a ${quote === "single" ? "single" : "double"} quote is not closed`);
  if (text) parts.push({ text });
  const uses = [...new Set(parts.flatMap((p) => ("placeholder" in p ? [p.placeholder] : [])))];
  return {
    source,
    uses,
    fill: (values) => parts.map((p) => ("text" in p ? p.text : quoteFor(values[p.placeholder], p.quote))).join(""),
  };
}

/**
 * Whether a word starting right after `before` is read again as shell code: the script of
 * `sh -c` (bash, dash, zsh, ksh, busybox sh; also through su, ssh, sudo, env, xargs), or words of an `eval`.
 */
function rereadBy(before: string): boolean {
  const command = before.split(/[;&|\n]/).pop() ?? "";
  if (/(^|[\s(])eval\s/.test(command)) return true;
  return /(^|[\s(/])(sh|bash|dash|zsh|ksh|ash|mksh|fish|su|ssh|runuser)\s+(?:-[A-Za-z-]+\s+)*-[A-Za-z]*c\s*$/.test(command) || /(^|\s)ssh\s+(\S+\s+)*$/.test(command);
}

/** `value` as the shell must see it at a place with this quoting, to read back exactly `value`. */
export function quoteFor(value: string, quote: Quote): string {
  if (quote === "single") return value.replaceAll("'", `'\\''`);
  if (quote === "double") return value.replace(/[\\"$`]/g, (c) => `\\${c}`);
  // always quoted when bare: a name like `-rf` or `a b` stays one word and never an option's text
  return `'${value.replaceAll("'", `'\\''`)}'`;
}
