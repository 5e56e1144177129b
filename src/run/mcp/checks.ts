import type { Section, Tier } from "../../corpus/rows.js";
import { statusOf, type RowResult, type ScoreOptions } from "../outcome.js";
import type { Check } from "../run-row.js";
import { ran as tookRun } from "./classify-accepted.js";
import { isRefusal, type Classed } from "./classify.js";

/** A classed answer, with what the sandbox saw while it was given (src/run/mcp/observed.ts), when known. */
type Seen = Classed & { observed?: string; unanswered?: string };

/** The verdict as a report shows it: with what was observed beside it, then the text. */
function told(classed: Seen): string {
  return `${classed.verdict}${classed.observed !== undefined ? ` [${classed.observed}]` : ""}: ${classed.text}`;
}

// An invalid call's answer as checks: each the seed's rule seen from outside, its expected and
// actual as small records (a verdict, a flag) with the text judged beside them, so any report
// shows it and the diagnosis compares answers by their sense (the flag), never by their text.

export const WHAT = {
  /** s10: invalid arguments never reach the tool. */
  refused: "refused before the tool runs",
  /** s11: the call neither crashes nor hangs the server, and a ping after it is answered. */
  answers: "the server keeps answering",
  /** s15: the refusal is an error the model reads (an isError result, or -32602). */
  readable: "the refusal is an error the model reads",
  /** s23, s17: the refusal names the argument (or element) that is wrong. */
  named: "the refusal names what is wrong",
  /** --mcp-run: a call the reference proves valid runs the tool (the acceptance side of the subset). */
  accepted: "a valid call runs the tool",
} as const;

/** The checks of one invalid call, its answer classed, and whether a ping after it was answered. */
export function callChecks(classed: Seen, pingAfter: string | undefined, tier: Tier = "core", refusalTier: Tier = tier): Check[] {
  const { verdict, text } = classed;
  const shown = { answer: verdict, text, rule: classed.rule, ...(classed.observed !== undefined ? { observed: classed.observed } : {}) };
  const ran = isRefusal(verdict) ? false : verdict === "ran" || verdict === "ran, then failed" ? true : "cannot tell";
  const checks: Check[] = [
    { level: "verdict", tier, what: WHAT.refused, expected: { ran: false }, actual: { ran, ...shown }, pass: ran === false, note: told(classed) },
  ];
  // a server that died or stopped answering is a crash, as a subject's death is (run-row.ts's {died})
  const died = verdict === "crashed" || verdict === "hung" ? `${verdict}: ${text}` : (classed.unanswered ?? pingAfter);
  checks.push({ level: "verdict", tier, what: WHAT.answers, expected: { answers: true }, actual: died === undefined ? { answers: true } : { died }, pass: died === undefined });
  if (ran === false) {
    const readable = verdict !== "unreadable refusal";
    checks.push({ level: "verdict", tier: refusalTier, what: WHAT.readable, expected: { readable: true }, actual: { readable, ...shown }, pass: readable });
    // an unreadable refusal may name what is wrong all the same: only its form fails
    const named = verdict === "refused" || (verdict === "unreadable refusal" && classed.named === true);
    checks.push({ level: "paths", tier: refusalTier, what: WHAT.named, expected: { named: true }, actual: { named, ...(classed.partly ? { partly: true } : {}), ...(classed.other ? { other: classed.other } : {}), ...shown }, pass: named });
  }
  return checks;
}

/** The checks of one valid call (--mcp-run): the tool ran, and the server keeps answering. */
export function acceptChecks(classed: Seen, pingAfter: string | undefined): Check[] {
  const { verdict, text } = classed;
  const ran = tookRun(verdict);
  const died = verdict === "crashed" || verdict === "hung" ? `${verdict}: ${text}` : (classed.unanswered ?? pingAfter);
  return [
    { level: "verdict", tier: "core", what: WHAT.accepted, expected: { ran: true }, actual: { ran, answer: verdict, text, rule: classed.rule, ...(classed.observed !== undefined ? { observed: classed.observed } : {}) }, pass: ran, note: told(classed) },
    { level: "verdict", tier: "core", what: WHAT.answers, expected: { answers: true }, actual: died === undefined ? { answers: true } : { died }, pass: died === undefined },
  ];
}

/** What a row of a server's own is, before it is answered. */
export interface McpRow {
  id: string;
  section: Section;
  tier: Tier;
  rule: string;
  pitfalls: string[];
  why: string;
}

/** A row's result from its checks (errored when `error` is given). */
export function mcpResult(row: McpRow, checks: Check[], ms: number, options: ScoreOptions, error?: string): RowResult {
  const { id, section, tier, rule, pitfalls } = row;
  return { id, section, tier, rule, pitfalls, status: error !== undefined ? "errored" : statusOf(checks, options), checks: error !== undefined ? [] : checks, ms, ...(error !== undefined ? { error } : {}) };
}
