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
}

/** A tool's own failure, not a refusal: an exception's name, a stack frame, a traceback, a panic, a failed file or network call. */
export const FAILURE_MARKERS = /\b(TypeError|ReferenceError|RangeError|SyntaxError|EvalError)\b|cannot read propert|is not a function|is not defined|undefined is not|null is not|\bat \S+ \(.*:\d+:\d+\)|Traceback \(most recent call last\)|\bpanic:|\bENOENT\b|\bEACCES\b|\bECONNREFUSED\b|fetch failed|\bEAI_AGAIN\b|\bENOTFOUND\b|\bETIMEDOUT\b|\bECONNRESET\b|socket hang up/i;

/** Words of a refusal of arguments. */
export const REFUSAL_MARKERS = /invalid|validation|required|expected|\bmust\b|\bshould\b|not allowed|unrecogni[sz]ed|unexpected|unknown (key|propert|field|argument|param)|additional propert|not one of|too (small|big|long|short)|at (least|most)|greater than|less than|missing|\benum\b|schema|not a valid|not found|unknown tool|no such tool|does not exist/i;

/** A normal result that says it is an error: it starts so, or is a JSON object with an error member. */
export function saysError(text: string): boolean {
  if (/^\s*(error|failed|failure)\b/i.test(text)) return true;
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
    const record = value as Record<string, unknown>;
    return (record.error !== undefined && record.error !== null && record.error !== false) || record.success === false || record.ok === false;
  } catch {
    return false;
  }
}

/** Whether `text` mentions the first token of one of the alternatives (the property, for an element's error). */
export function namesPart(text: string, alternatives: readonly (readonly string[])[]): boolean {
  return alternatives.some((tokens) => tokens.length > 1 && mentions(text, tokens[0]!));
}

/** Whether `text` mentions every token of one of the alternatives, each as a whole word. */
export function names(text: string, alternatives: readonly (readonly string[])[]): boolean {
  return alternatives.some((tokens) => tokens.length > 0 && tokens.every((token) => mentions(text, token)));
}

function mentions(text: string, token: string): boolean {
  const escaped = token.replace(/[\\^$.*+?()[\]{}|]/g, "\\$&");
  if (/^\d+$/.test(token)) return new RegExp(`(?<![0-9])${escaped}(?![0-9])`, "u").test(text);
  // a name of one or two letters ("a", "id") is a word of any sentence: only quoted or in a path does it name a property
  if (token.length <= 2) return new RegExp(`(?<=["'\`.\\[/])${escaped}(?=["'\`\\]:./[])|(?<=\\bat )${escaped}(?=$|[\\n,;)])`, "u").test(text);
  return new RegExp(`(?<![A-Za-z0-9_])${escaped}(?![A-Za-z0-9_])`, "u").test(text);
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
export function classify(answer: Answer, expected: readonly (readonly string[])[]): Classed {
  switch (answer.kind) {
    case "hung":
    case "closed":
      return unanswered(answer)!;
    case "error": {
      const { code } = answer.error;
      const { text, shown } = errorText(answer.error);
      if (code === -32602) return names(text, expected) ? { verdict: "refused", text: shown, rule: "-32602 naming the argument" } : { verdict: "refused without saying what", text: shown, rule: "-32602 naming nothing wrong", partly: namesPart(text, expected) };
      // an old SDK server answers its tool's own failure as -32603 too: the tool ran (a request that reached for the network)
      if (FAILURE_MARKERS.test(text)) return { verdict: "ran, then failed", text: shown, rule: `a JSON-RPC error (${String(code)}) whose text is the tool's own failure` };
      return { verdict: "unreadable refusal", text: shown, rule: `a JSON-RPC error other than -32602 (${String(code)})` };
    }
    case "result": {
      const text = resultText(answer.result);
      const isError = (answer.result as { isError?: unknown } | undefined)?.isError === true;
      if (FAILURE_MARKERS.test(text)) return { verdict: "ran, then failed", text, rule: `${isError ? "isError" : "a normal result"} whose text is the tool's own failure` };
      if (isError) {
        if (REFUSAL_MARKERS.test(text)) return names(text, expected) ? { verdict: "refused", text, rule: "isError naming the argument" } : { verdict: "refused without saying what", text, rule: "isError in a refusal's words, naming nothing wrong", partly: namesPart(text, expected) };
        return { verdict: "cannot tell", text, rule: "isError with neither a refusal's words nor a failure's" };
      }
      if (saysError(text)) return { verdict: "unreadable refusal", text, rule: "a normal result that says error" };
      return { verdict: "ran", text, rule: "a normal result" };
    }
  }
}

/** Whether the tool was not seen to run: a refusal of any form. */
export function isRefusal(verdict: Verdict): boolean {
  return verdict === "refused" || verdict === "refused without saying what" || verdict === "unreadable refusal";
}
