import { crashIn, sameJson, type Check } from "../run/run-row.js";
import { LEVELS, type Level } from "../corpus/rows.js";

// A symptom: how a mutant's failure on a row shows in ANOTHER implementation's answers there.
// The mutant's exact answer is one implementation's; a real one makes the same mistake with its
// own wording, its own key order and its own wrong order. So a failure is compared by its sense:
//
//   - a wrong value (a verdict, a register accepted, a crash) must be the same value, compared as
//     JSON values, never as text; a refusal is a refusal whatever it says;
//   - a call's outcome must be wrong the same way: what happened first (the same tools ran, or
//     none), else how it was told, where the mutant's telling first goes wrong;
//   - a list that is the right items in a wrong order (definitions, names, errors), or a text
//     that is the right lines in a wrong order, must be the right items in SOME wrong order
//     (definitions by their names, whatever their content);
//   - error paths must miss the same paths and add the same ones (in any order), or, when the
//     mutant puts every error at the root, be all at the root too.
//
// Of several failing checks (a row's steps), the first must fail in the same sense; the later
// ones need only fail (code wrong in more ways than the mutant still makes its mistake).
// And no check below that level may fail: a subject that is wrong earlier fails another way.

/** A failing check, as evidence of how a row failed. */
export interface Failure {
  level: Level;
  what: string;
  expected: unknown;
  actual: unknown;
}

/** How a row failed: its failing checks at the lowest level that fails, of any tier; undefined when none fails. */
export function evidenceOf(checks: readonly Check[]): Failure[] | undefined {
  for (const level of LEVELS) {
    const failing = checks.filter((check) => check.level === level && !check.pass);
    if (failing.length > 0) return failing.map(({ what, expected, actual }) => ({ level, what, expected, actual }));
  }
  return undefined;
}

/** Whether a subject's checks on a row show the failure `evidence` (a mutant's there) in the same sense. */
export function showsSame(evidence: readonly Failure[], checks: readonly Check[]): boolean {
  const level = LEVELS.indexOf(evidence[0]!.level);
  if (checks.some((check) => !check.pass && LEVELS.indexOf(check.level) < level)) return false;
  // the first failing check is the fault; a later step's failure may be its consequence, and
  // code wrong in more ways than the mutant (a duplicate that shadows but is listed too) still
  // has the fault: later checks must fail, in whatever way
  return evidence.every((failure, i) => {
    const check = checks.find((c) => c.what === failure.what);
    return check !== undefined && !check.pass && (i > 0 || sameSense(failure, check.actual));
  });
}

/**
 * Where a subject showing the symptom is wrong in more ways than the mutant, at the symptom's
 * level: a later step wrong another way, a field of an outcome the mutant had right, a check the
 * mutant passed. Said beside the pitfall, so an author who fixes it knows what is left.
 */
export function extraWays(evidence: readonly Failure[], checks: readonly Check[]): string[] {
  const level = evidence[0]!.level;
  const extra: string[] = [];
  for (const check of checks) {
    if (check.pass || check.level !== level) continue;
    // "step 6: definitions" and "step 3: definitions" are one way of being wrong
    const name = check.what.replace(/^step [\d.]+: /, "").replace(/^call "[^"]*": /, "call ");
    const failure = evidence.find((f) => f.what === check.what);
    const { expected, actual } = check;
    if (isRecord(expected) && isRecord(actual)) {
      // an outcome: the fields wrong here that the mutant had right (all of them, where it passed the check)
      const theirs = failure !== undefined && isRecord(failure.actual) ? failure.actual : expected;
      for (const key of Object.keys(expected)) if (sameJson(expected[key], theirs[key]) && !sameJson(expected[key], actual[key])) extra.push(`${name}: ${key}`);
    } else if (failure === undefined || !sameSense(failure, actual)) extra.push(name);
    // the right names in a wrong order, and their content rewritten as well
    else if (isNamedList(expected) && Array.isArray(actual) && !sameBag(actual, expected)) extra.push(name);
  }
  return [...new Set(extra)];
}

/** Whether `evidence` and the subject's checks fail in exactly the same way (the same answers, as JSON). */
export function showsExactly(evidence: readonly Failure[], checks: readonly Check[]): boolean {
  const own = evidenceOf(checks);
  return own !== undefined && own.length === evidence.length && own.every((f, i) => f.what === evidence[i]!.what && sameJson(f.actual, evidence[i]!.actual));
}

/**
 * Whether a failure is only that a tool ran on arguments that are not JSON at all (the mutant ran
 * it on the text as sent). A registry that parses the arguments before anything else cannot do
 * that, whatever it does with valid JSON that breaks the schema: where it refuses such a call
 * without running the tool, the row is no evidence for or against the symptom.
 */
export function isRunOnText(evidence: readonly Failure[]): boolean {
  return (
    evidence.length > 0 &&
    evidence.every(({ expected, actual }) => {
      if (!isRecord(expected) || !isRecord(actual)) return false;
      const wrong = Object.keys(actual).filter((key) => !sameJson(expected[key], actual[key]));
      return wrong.length === 1 && wrong[0] === "runs" && Array.isArray(actual.runs) && actual.runs.length > 0 && actual.runs.every((text) => typeof text === "string" && notJson(text));
    })
  );
}

/** Whether a subject ran no tool where the mutant ran one on text that is not JSON (isRunOnText), whatever else it answered there. */
export function ranNoneThere(evidence: readonly Failure[], checks: readonly Check[]): boolean {
  return evidence.every((failure) => {
    const actual = checks.find((c) => c.what === failure.what)?.actual;
    return isRecord(actual) && sameJson(actual.runs, (failure.expected as Record<string, unknown>).runs);
  });
}

function notJson(text: string): boolean {
  try {
    JSON.parse(text);
  } catch {
    return true;
  }
  return false;
}

/**
 * Whether a failure is only an order, in any form: a list of the right items in a wrong order, or
 * a text whose lines are the right lines in a wrong order (a tool message listing its errors).
 * A named order pitfall takes such rows even where its mutant's order happened to be right.
 */
export function isReordered(evidence: readonly Failure[]): boolean {
  return evidence.every(({ expected, actual }) => {
    if (Array.isArray(expected) && Array.isArray(actual)) return isReordering(actual, expected);
    return typeof expected === "string" && typeof actual === "string" && isReordering(actual.split("\n"), expected.split("\n"));
  });
}

function sameSense(failure: Failure, actual: unknown): boolean {
  const { expected, actual: theirs } = failure;
  if (crashIn(theirs) !== undefined) return crashIn(actual) !== undefined;
  if (typeof theirs === "string" && theirs.startsWith("refused: ")) return typeof actual === "string" && actual.startsWith("refused: ");
  if (failure.level === "paths" && isStrings(expected) && isStrings(theirs)) return isStrings(actual) && samePathSense(expected, theirs, actual);
  // definitions in a wrong order: any wrong order of the same names, whatever their content (said beside it: extraWays)
  if (Array.isArray(expected) && Array.isArray(theirs) && isReordering(theirs, expected)) return Array.isArray(actual) && isReordering(namesOf(actual), namesOf(expected));
  // a text of lines (a tool message listing errors) in a wrong order: any other wrong order of the same lines
  if (typeof expected === "string" && typeof theirs === "string" && isReordering(theirs.split("\n"), expected.split("\n"))) return typeof actual === "string" && isReordering(actual.split("\n"), expected.split("\n"));
  if (isRecord(expected) && isRecord(theirs)) {
    if (!isRecord(actual)) return false;
    const wrong = Object.keys(theirs).filter((key) => !sameJson(expected[key], theirs[key]));
    if ("prefixed" in expected) return sameOutcome(expected, theirs, actual, wrong);
    return wrong.length > 0 && wrong.every((key) => sameJson(actual[key], theirs[key]));
  }
  return sameJson(actual, theirs);
}

/** A call's outcome: what happened (the tools that ran), then how it was told (sameOutcome). */
const HAPPENED = ["runs", "otherToolsRan"];

/**
 * Whether a call's outcome is wrong in the mutant's sense. What happened comes first: a mutant
 * that ran a tool it should not have (or none it should) is shown by a subject whose tools ran the
 * same way, however it told it (a registry that tells nothing as an error still ran the tool on
 * invalid arguments, or none on empty ones). A mutant wrong only in the telling is shown by a
 * subject whose tools ran right and whose telling is wrong where the mutant's first goes wrong
 * (a failure without the prefix, whatever its verdict says).
 */
function sameOutcome(expected: Record<string, unknown>, theirs: Record<string, unknown>, actual: Record<string, unknown>, wrong: readonly string[]): boolean {
  const happened = HAPPENED.filter((key) => wrong.includes(key));
  if (happened.length > 0) return happened.every((key) => sameJson(actual[key], theirs[key]) || (key === "runs" && ranWhereNoneShould(expected[key], theirs[key], actual[key])));
  // how it was told, each field in the order of cause: the verdict, its prefix, the reply's ids, the message agreeing with the result
  const first = ["isError", "prefixed", "answers", "consistent"].find((key) => wrong.includes(key));
  return first !== undefined && ranAsExpected(expected, actual) && sameJson(actual[first], theirs[first]);
}

/** The tools ran as they should: the same ones, as often (a registry that parses first passes the arguments re-written). */
function ranAsExpected(expected: Record<string, unknown>, actual: Record<string, unknown>): boolean {
  const { runs } = expected;
  const sameRuns = sameJson(actual.runs, runs) || (Array.isArray(runs) && Array.isArray(actual.runs) && actual.runs.length === runs.length);
  return sameRuns && sameJson(actual.otherToolsRan, expected.otherToolsRan);
}

/**
 * Whether a failure is only in how calls were told (a verdict, a prefix, a reply's ids), their
 * tools having run as they should. On a row where a subject's tools ran otherwise (it ran one on
 * invalid arguments: another pitfall) nothing was left to tell, and the row is no evidence for or
 * against such a symptom.
 */
export function isToldOnly(evidence: readonly Failure[]): boolean {
  return evidence.every(({ expected, actual }) => isRecord(expected) && isRecord(actual) && "prefixed" in expected && HAPPENED.every((key) => sameJson(actual[key], expected[key])));
}

/** Whether, on a call the mutant only told wrongly (isToldOnly), the subject's tools ran otherwise than they should. */
export function ranOtherwise(evidence: readonly Failure[], checks: readonly Check[]): boolean {
  return evidence.some((failure) => {
    const actual = checks.find((c) => c.what === failure.what)?.actual;
    return isRecord(actual) && !ranAsExpected(failure.expected as Record<string, unknown>, actual);
  });
}

/**
 * A tool that should not have run and ran (the mutant's and the subject's runs both non-empty):
 * the same fault whatever the arguments it was given (a registry that parses them first passes
 * `{"id":"7"}` where the mutant passed the bytes `{"id": "7"}`).
 */
function ranWhereNoneShould(expected: unknown, theirs: unknown, actual: unknown): boolean {
  // the mutant's runs differ from the empty list expected, so they are not empty
  return Array.isArray(expected) && expected.length === 0 && Array.isArray(theirs) && Array.isArray(actual) && actual.length > 0;
}

function samePathSense(expected: string[], theirs: string[], actual: string[]): boolean {
  const atRoot = (path: string) => path === "$" || path === "";
  if (theirs.length > 0 && theirs.every(atRoot) && expected.some((path) => !atRoot(path))) return actual.length > 0 && actual.every(atRoot);
  // the same paths missing, the same ones added, whatever the order (a wrong order is none of either)
  return sameBag(without(expected, theirs), without(expected, actual)) && sameBag(without(theirs, expected), without(actual, expected));
}

/** A list's items by name where each is a named record (definitions), else the items themselves. */
function namesOf(list: readonly unknown[]): unknown[] {
  return isNamedList(list) ? list.map((item) => item.name) : [...list];
}

function isNamedList(value: unknown): value is Record<string, unknown>[] {
  return Array.isArray(value) && value.every((item) => isRecord(item) && typeof item.name === "string");
}

/** The same items as `expected` (as JSON values, as many times each), in another order. */
function isReordering(list: readonly unknown[], expected: readonly unknown[]): boolean {
  return sameBag(list, expected) && !sameJson(list, expected);
}

/** The items of `list` left after taking out one per item of `other` (a multiset difference). */
function without<T>(list: readonly T[], other: readonly unknown[]): T[] {
  const left = [...list];
  for (const item of other) {
    const at = left.findIndex((x) => sameJson(x, item));
    if (at !== -1) left.splice(at, 1);
  }
  return left;
}

/** The same items, as many times each, in any order. */
function sameBag(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && without(a, b).length === 0;
}

function isStrings(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
