// What the user gives to reach a server over HTTP (a header's value: a token) is never written
// out: every text that may hold it (an answer that echoes request headers, an error) goes
// through a redactor first, which puts REDACTED where a secret was.

export const REDACTED = "[redacted]";

export type Redact = (text: string) => string;

/** Words of a value at least this long are secrets of their own ("Bearer TOKEN": TOKEN alone). */
const WORD = 8;

/** A redactor of the given header values: each as written, JSON-escaped and percent-encoded, and its long words. */
export function redactorOf(values: readonly string[]): Redact {
  const secrets = new Set<string>();
  for (const value of values) {
    for (const secret of [value, ...value.split(/\s+/).filter((word) => word.length >= WORD)]) {
      if (secret === "") continue;
      secrets.add(secret);
      secrets.add(JSON.stringify(secret).slice(1, -1));
      secrets.add(encodeURIComponent(secret));
    }
  }
  // the longest first: a value is replaced whole before its words are looked for
  const forms = [...secrets].sort((a, b) => b.length - a.length);
  if (forms.length === 0) return (text) => text;
  return (text) => {
    if (!forms.some((form) => text.includes(form))) return text;
    const replaced = replaceAll(text, forms);
    // a secret met outside a JSON string (a short value matching a number): the strings only, so the answer still parses
    if (parses(text) && !parses(replaced)) return JSON.stringify(redactStrings(JSON.parse(text), forms));
    return replaced;
  };
}

function replaceAll(text: string, forms: readonly string[]): string {
  let out = text;
  for (const form of forms) if (out.includes(form)) out = out.split(form).join(REDACTED);
  return out;
}

function redactStrings(value: unknown, forms: readonly string[]): unknown {
  if (typeof value === "string") return replaceAll(value, forms);
  if (Array.isArray(value)) return value.map((item) => redactStrings(item, forms));
  if (typeof value === "object" && value !== null) return Object.fromEntries(Object.entries(value).map(([key, item]) => [replaceAll(key, forms), redactStrings(item, forms)]));
  return value;
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
