import type { Answer } from "../../subjects/mcp/rpc.js";

// How an answer to an invalid tools/call is classed. Every rule is here, in the order applied;
// docs/mcp.md repeats this table word for word. The text a verdict was judged on travels with it.

export const VERDICTS = ["refused", "refused without saying what", "unreadable refusal", "ran", "ran, then failed", "cannot tell", "crashed", "hung"] as const;
export type Verdict = (typeof VERDICTS)[number];

export interface Classed {
  verdict: Verdict;
  /** The text judged: the result's text content, or the JSON-RPC error as received. */
  text: string;
  /** Which rule classed it. */
  rule: string;
  /** A refusal that does not name what is wrong mentions part of it all the same (the array, not the element's index). */
  partly?: boolean;
  /** A refusal that does not name what is wrong names other properties of the tool: it may be of them, not of the probe's rule. */
  other?: string[];
  /** An unreadable refusal that names what is wrong (a refused one always does, one without saying what never). */
  named?: boolean;
}

/**
 * A tool's own failure, not a refusal: an exception's name, a stack frame, a traceback, a panic, a
 * failed file, network or subprocess call (Node's, Python's, Go's and the C library's words for them).
 */
export const FAILURE_MARKERS = new RegExp(
  [
    String.raw`\b(TypeError|ReferenceError|RangeError|SyntaxError|EvalError)\b`,
    String.raw`\b(AttributeError|KeyError|IndexError|NameError|UnboundLocalError|ZeroDivisionError|OSError|FileNotFoundError|PermissionError|IsADirectoryError|NotADirectoryError|BrokenPipeError|ConnectionError|ConnectionRefusedError|ConnectionResetError|CalledProcessError)\b`,
    "cannot read propert|is not a function|is not defined|undefined is not|null is not|is not iterable|is not a constructor",
    // Node's own message for a bad argument to its API (fs.writeFileSync's data), with or without its code
    String.raw`\bThe \\?"[^"\\]+\\?" (argument|property) must be\b`,
    String.raw`\bat \S+ \(.*:\d+:\d+\)|Traceback \(most recent call last\)|\bpanic:`,
    String.raw`\bE(NOENT|ACCES|PERM|ROFS|EXIST|ISDIR|NOTDIR|NOTEMPTY|NOSPC|MFILE|PIPE|CONNREFUSED|CONNRESET|CONNABORTED|NETUNREACH|HOSTUNREACH|ADDRNOTAVAIL|TIMEDOUT|NOTFOUND|AI_AGAIN)\b`,
    // Node's own error codes for a call of its API gone wrong (ERR_INVALID_ARG_TYPE from fs inside a handler), none a validator's
    String.raw`\bERR_(INVALID_ARG_TYPE|INVALID_ARG_VALUE|OUT_OF_RANGE|INVALID_URL|STRING_TOO_LONG|UNHANDLED_REJECTION|(FS|CHILD_PROCESS|SOCKET|STREAM|HTTP|TLS)_[A-Z_]+)\b`,
    "fetch failed|socket hang up|no such host|connection refused|network is unreachable|name or service not known|temporary failure in name resolution",
    "no such file or directory|permission denied|read-only file system|executable file not found|command not found",
    // a subprocess that ran and failed: Node's execSync/execFile, Python's subprocess, Go's os/exec
    String.raw`command failed|exited with code \d+|exit (status|code) \d+|returned non-zero exit status`,
    "syntax error at or near|no such (table|column)",
    // SQLite's constraints and better-sqlite3's binding of a value it cannot take: the statement was prepared and run
    "constraint failed|can only bind numbers|too (few|many) parameter values|not a git repository",
    // an HTTP client's request made and failed (axios's words), an abort or a timeout of one
    String.raw`request failed with status code \d+|timeout of \d+ ?ms exceeded|the operation was aborted|navigation timeout`,
    // a URL given to an HTTP client that has no scheme it speaks (Go's net/http, axios): the request was made
    "unsupported protocol",
    // a daemon or cluster the handler reached for (Docker's, kubectl's words), a shell's own complaint (dash: `sh: 1: x: not found`)
    String.raw`cannot connect to the docker daemon|the connection to the server \S+ was refused|\bsh: \d+: `,
    // a browser the handler launched or drove (Puppeteer's and Playwright's words)
    "could not find (chrome|chromium|expected browser)|executable doesn't exist|target closed|session closed|execution context was destroyed",
    String.raw`\b(missing|required|no|unset) (\w+ )?environment variables?\b`,
  ].join("|"),
  "i",
);

/** The same, in their case only: codes and names written in capitals (a snake_case property is no environment variable). */
export const CASED_FAILURE_MARKERS = new RegExp(
  [
    // a database that ran the statement and failed: SQLite's codes, SQL's SQLSTATE, MySQL's
    String.raw`\bSQLITE_[A-Z]+\b|\bSQLSTATE\b|\bER_[A-Z]+(_[A-Z]+)+\b`,
    // a browser the handler drives, failing: Chrome's network codes, the DevTools protocol's own errors
    String.raw`\bnet::ERR_[A-Z_]+|\bProtocol error \(`,
    // a client library's error class for a request, query or connection gone wrong: never a validator's
    String.raw`\b(AxiosError|FetchError|AbortError|TimeoutError|HttpError|HTTPError|GaxiosError|MongoServerError|MongoNetworkError|MongoServerSelectionError|PrismaClient[A-Za-z]*Error|SequelizeDatabaseError|QueryFailedError)\b`,
    // git's own failure, opening a line
    String.raw`(?:^|\n)fatal: `,
    // the handler reached for its configuration and found none: an environment variable not set
    String.raw`\b[A-Z][A-Z0-9]*(_[A-Z0-9]+)+\b[^.\n]{0,30}\b(not set|to be set|must be set|is required|is missing|not configured)\b`,
  ].join("|"),
);

/** Where a path to an argument begins in a validator's words (`arguments.name: …`): never a library's object. */
const PATH_ROOTS = new Set(["args", "arguments", "input", "inputs", "params", "parameters", "body", "data", "root", "instance", "value", "request", "payload", "options", "properties"]);

/**
 * A library's own error, in Playwright's form `object.method: message` (`apiRequestContext.get: First
 * argument must be…`), after a lead-in or opening a line: the handler called the library with the
 * value. A validator writes a path so too (`params.name: Expected string`): the first name is then one
 * of the tool's properties, or a path's root, and the text is not read as a library's.
 */
function libraryCallFailed(text: string, properties: ReadonlySet<string>): boolean {
  const objects = [...text.matchAll(/(?:^|:\s+|\n\s*)([a-z][A-Za-z0-9]*)\.[a-z][A-Za-z0-9]*: /g)].map((match) => match[1]!.toLowerCase());
  if (objects.length === 0) return false;
  const named = new Set([...properties, ...PATH_ROOTS].map((name) => name.toLowerCase()));
  return objects.some((object) => !named.has(object));
}

/** A lookup that missed: the tool looked something up (a record, a file, a branch), which is its own work. */
const LOOKUP_MISSED = /\b(not found|does not exist|doesn't exist|could not find|couldn't find|cannot find|can't find|(?:could not|couldn't|cannot|can't) be found)\b|找不到|未找到/i;
/** …unless what was not found is the tool itself, or an argument, as a validator says (`Tool 'x' not found`, `parameter 'q' not found`). */
const NOT_FOUND_IS_A_REFUSAL = /\b(tools?|parameters?|arguments?|propert(y|ies)|params?|methods?)\b[^\n.]{0,40}\b(not found|does not exist|doesn't exist|(?:could not|couldn't|cannot|can't) be found)\b|\bunknown tool\b|\bno such tool\b/i;

/** Whether a lookup of the tool's own missed (`Entity with name a not found`, `Branch 'a' does not exist`). */
function lookupMissed(text: string): boolean {
  return LOOKUP_MISSED.test(text) && !NOT_FOUND_IS_A_REFUSAL.test(text);
}

/** What classing an answer may know of the call besides what naming it takes. */
export interface CallContext {
  /** The tool's property names, at any depth. */
  properties?: ReadonlySet<string>;
}

/** Whether `text` is the tool's own failure (rule 6). */
export function toolFailed(text: string, context: CallContext = {}): boolean {
  return FAILURE_MARKERS.test(text) || CASED_FAILURE_MARKERS.test(text) || libraryCallFailed(text, context.properties ?? new Set()) || lookupMissed(text);
}

/** Words of a refusal of arguments. */
export const REFUSAL_MARKERS = /invalid|validation|required|expected|\bmust\b|\bshould\b|\b(has|have|needs?) to be\b|cannot be empty|\ballowed\b|\bno \w+ (provided|given|specified|supplied)\b|\brequires (either|one of|at least)\b|\bdeprecated\b|unrecogni[sz]ed|unexpected|unknown (key|propert|field|argument|param)|additional propert|not one of|too (small|big|long|short)|at (least|most)|greater than|less than|missing|\benum\b|schema|not a valid|not found|(?:could not|couldn't|cannot|can't) be found|unknown tool|no such tool|does not exist|\bunsupported\b|格式錯誤|格式错误|無效|无效|必填|不能為空|不能为空/i;

/** A text's opening blank and symbols (`❌ Error: …`), before its first word. */
const LEADING_SYMBOLS = String.raw`^\s*(?:\p{So}\uFE0F?\s*)*`;
const OPENS_ERROR = new RegExp(`${LEADING_SYMBOLS}(error|failed|failure)\\b`, "iu");
/** The opening word (a name, perhaps quoted, after an `error:`) and the three words after it. */
const OPENING_WORDS = new RegExp(`${LEADING_SYMBOLS}(?:error:?\\s*)?["'\`]?([\\p{L}\\p{N}_$.-]+)["'\`]?((?:\\s+\\S+){0,3})`, "iu");

/** A normal result that says it is an error: it starts so, or is a JSON object with an error member, `success: false`, `isError: true` or errors listed. */
export function saysError(text: string): boolean {
  if (OPENS_ERROR.test(text)) return true;
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
    const record = value as Record<string, unknown>;
    // a list of errors that is not empty (a batch's), or an MCP result with isError told inside a normal one's text
    return (record.error !== undefined && record.error !== null && record.error !== false) || record.success === false || record.ok === false || record.isError === true || batchFailed(record);
  } catch {
    return false;
  }
}

/** A batch's result that failed: errors listed beside a count of failures (`{"failed": 1, "errors": [{"error": "Invalid category: 12.5"}]}`), not a tool's data that lists errors. */
function batchFailed(record: Record<string, unknown>): boolean {
  return Array.isArray(record.errors) && record.errors.length > 0 && typeof record.failed === "number" && record.failed > 0;
}

/** A normal result that opens with a refusal's word ("Unknown operation: …", "Invalid days"), or does so after a lead-in ending "failed:": a handler's own check, told as a result. */
export function opensRefusing(text: string): boolean {
  // also behind a handler's own lead-in: `Node management operation failed: Unknown operation: 12.5`
  return /^\s*(?:[^:\n]{0,80}\bfailed:\s*)?(unknown|invalid|missing|unsupported|unrecogni[sz]ed|illegal|bad)\b/i.test(text);
}

/** A normal result that opens with the argument's name and then a refusal's words (`Updates array must be provided and non-empty`): a handler's own check, told as a result. */
export function opensNaming(text: string, alternatives: readonly (readonly string[])[]): boolean {
  const opening = OPENING_WORDS.exec(text);
  if (opening === null) return false;
  const [, first, rest] = opening;
  const isName = alternatives.some((tokens) => tokens.length > 0 && tokens.at(-1)!.toLowerCase() === first!.toLowerCase());
  return isName && REFUSAL_MARKERS.test(rest ?? "");
}

/** Whether `text` mentions the first token of one of the alternatives (the property, for an element's error). */
export function namesPart(text: string, alternatives: readonly (readonly string[])[]): boolean {
  return alternatives.some((tokens) => tokens.length > 1 && mentions(text, tokens[0]!));
}

/** Whether `text` mentions every token of one of the alternatives, each as a whole word. */
export function names(text: string, alternatives: readonly (readonly string[])[]): boolean {
  return alternatives.some((tokens) => tokens.length > 0 && tokens.every((token) => mentions(text, token)));
}

/** Other words a refusal uses for "object" (the arguments' own type): zod says record, Python dict. */
const OBJECT_WORDS = ["object", "record", "dict", "dictionary", "mapping"];

/**
 * Whether `text` mentions `token` as a whole word, in any case, and inside JSON-escaped text too
 * (`path: [\"id\"]`). An index is a number not inside a longer one. A name of one or two letters
 * ("a", "id") is a word of any sentence: it names a property only quoted, in a path, opening a
 * line before a colon (`id: Invalid input`) or as its subject (`id is required`), after "property", "field", "key", "argument" or
 * "parameter", or as zod writes it, `at a` ending a line or a clause.
 */
function mentions(text: string, token: string): boolean {
  if (token === "object") return OBJECT_WORDS.some((word) => wholeWord(text, word));
  const escaped = token.replace(/[\\^$.*+?()[\]{}|]/g, "\\$&");
  if (/^\d+$/.test(token)) return new RegExp(`(?<![0-9])${escaped}(?![0-9])`, "u").test(text);
  if (token.length <= 2) {
    const forms = [
      // quoted or in a path; a backslash before the closing quote is JSON's escape (`[\"id\"]`)
      String.raw`(?<=["'${"`"}.\[/])${escaped}(?=["'${"`"}\]:./[\\])`,
      // a path's last name, ending the text or a clause (zod's `at relations[0].to`)
      String.raw`(?<=[\w\]]\.)${escaped}(?=$|[\s,;)])`,
      String.raw`(?<=^[ \t]*|\n[ \t]*)${escaped}(?=:)`,
      // opening a sentence as its subject (`id is required for get`)
      String.raw`(?<=^[ \t]*|\n[ \t]*)${escaped}(?= (?:is|are|must|should|cannot|can't|has|have|needs?|was)\b)`,
      // a field of a list of issues, between a clause's colon and its own (fastmcp: `validation failed: q: Invalid input`)
      String.raw`(?<=[:,] )${escaped}(?=: )`,
      String.raw`(?<=\b(?:property|field|key|argument|parameter|param)s?:? )${escaped}(?![A-Za-z0-9_])`,
      String.raw`(?<=\bat )${escaped}(?=$|[\n,;)])`,
    ];
    return new RegExp(forms.join("|"), "iu").test(text);
  }
  return wholeWord(text, token);
}

function wholeWord(text: string, token: string): boolean {
  const escaped = token.replace(/[\\^$.*+?()[\]{}|]/g, "\\$&");
  return new RegExp(`(?<![A-Za-z0-9_])${escaped}(?![A-Za-z0-9_])`, "iu").test(text);
}

/** The text content of a tools/call result: its text items joined by newlines, else its JSON. */
export function resultText(result: unknown): string {
  const content = (result as { content?: unknown } | undefined)?.content;
  if (Array.isArray(content)) {
    const texts = content.map((item) => (typeof item === "object" && item !== null && typeof (item as { text?: unknown }).text === "string" ? (item as { text: string }).text : JSON.stringify(item)));
    if (texts.length > 0) return texts.join("\n");
  }
  const structured = (result as { structuredContent?: unknown } | undefined)?.structuredContent;
  return JSON.stringify(structured ?? result ?? null);
}

/** An answer that never came (hung, or the server went away), classed the same for any call; else undefined. */
export function unanswered(answer: Answer): Classed | undefined {
  if (answer.kind === "hung") return { verdict: "hung", text: `no answer within ${answer.ms} ms`, rule: "no answer in time" };
  if (answer.kind === "closed") return { verdict: "crashed", text: answer.how, rule: "the process exited or the stream closed" };
  return undefined;
}

/** A JSON-RPC error's text (its message and data) and how it is shown beside a verdict. */
export function errorText(error: { code: unknown; message: unknown; data?: unknown }): { text: string; shown: string } {
  const text = `${String(error.message)}${error.data !== undefined ? ` ${JSON.stringify(error.data)}` : ""}`;
  return { text, shown: `JSON-RPC error ${String(error.code)}: ${text}` };
}

/** Classes the answer to a call that the reference proved invalid; `expected` is what naming it takes. */
export function classify(answer: Answer, expected: readonly (readonly string[])[], context: CallContext = {}): Classed {
  const classed = classAnswer(answer, expected, context);
  if (classed.verdict !== "refused without saying what" && classed.verdict !== "unreadable refusal") return classed;
  if (names(classed.text, expected)) return classed.verdict === "unreadable refusal" ? { ...classed, named: true } : classed;
  const own = new Set(expected.flat().map((token) => token.toLowerCase()));
  const other = [...(context.properties ?? [])].filter((name) => !own.has(name.toLowerCase()) && mentions(classed.text, name)).slice(0, MAX_OTHERS);
  return other.length > 0 ? { ...classed, other } : classed;
}

/** The most other properties a refusal is said to name. */
const MAX_OTHERS = 3;

/** The verdict by the table's rules, before other properties named are looked for. */
function classAnswer(answer: Answer, expected: readonly (readonly string[])[], context: CallContext): Classed {
  switch (answer.kind) {
    case "hung":
    case "closed":
      return unanswered(answer)!;
    case "error": {
      const { code } = answer.error;
      const { text, shown } = errorText(answer.error);
      if (code === -32602) return names(text, expected) ? { verdict: "refused", text: shown, rule: "-32602 naming the argument" } : { verdict: "refused without saying what", text: shown, rule: "-32602 naming nothing wrong", partly: namesPart(text, expected) };
      // an old SDK server answers its tool's own failure as -32603 too: the tool ran (a request that reached for the network)
      if (toolFailed(text, context)) return { verdict: "ran, then failed", text: shown, rule: `a JSON-RPC error (${String(code)}) whose text is the tool's own failure` };
      if (REFUSAL_MARKERS.test(text)) return { verdict: "unreadable refusal", text: shown, rule: `a JSON-RPC error other than -32602 (${String(code)}) in a refusal's words` };
      return { verdict: "cannot tell", text: shown, rule: `a JSON-RPC error other than -32602 (${String(code)}) with neither a refusal's words nor a failure's` };
    }
    case "result": {
      const text = resultText(answer.result);
      const isError = (answer.result as { isError?: unknown } | undefined)?.isError === true;
      if (toolFailed(text, context)) return { verdict: "ran, then failed", text, rule: `${isError ? "isError" : "a normal result"} whose text is the tool's own failure` };
      if (isError) {
        if (REFUSAL_MARKERS.test(text)) return names(text, expected) ? { verdict: "refused", text, rule: "isError naming the argument" } : { verdict: "refused without saying what", text, rule: "isError in a refusal's words, naming nothing wrong", partly: namesPart(text, expected) };
        return { verdict: "cannot tell", text, rule: "isError with neither a refusal's words nor a failure's" };
      }
      // an error with no refusal's words ({"success": false}) may be the tool's own failure as well: it never passes
      if (saysError(text)) return REFUSAL_MARKERS.test(text) ? { verdict: "unreadable refusal", text, rule: "a normal result that says error, in a refusal's words" } : { verdict: "cannot tell", text, rule: "a normal result that says error, with neither a refusal's words nor a failure's" };
      if (opensRefusing(text) && names(text, expected)) return { verdict: "unreadable refusal", text, rule: "a normal result opening with a refusal's word, naming the argument" };
      if (opensNaming(text, expected)) return { verdict: "unreadable refusal", text, rule: "a normal result opening with the argument's name, then a refusal's words" };
      // or another property's: a handler's own check of the probe's base (said as another property named)
      if (opensNaming(text, [...(context.properties ?? [])].map((name) => [name]))) return { verdict: "unreadable refusal", text, rule: "a normal result opening with another property's name, then a refusal's words" };
      return { verdict: "ran", text, rule: "a normal result" };
    }
  }
}

/** Whether the tool was not seen to run: a refusal of any form. */
export function isRefusal(verdict: Verdict): boolean {
  return verdict === "refused" || verdict === "refused without saying what" || verdict === "unreadable refusal";
}
