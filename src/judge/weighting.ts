import { tiersOfRow, partOf, type RowResult, type ScoreOptions } from "../run/outcome.js";
import { SECTIONS, type Section } from "../corpus/rows.js";
import { statusAt } from "./scoring.js";

// How a run's rows become its headline score, as the grader chooses (docs/scoring.md, "Choosing
// the score"). Three ways, all computed from the rows alone, so a reader recomputes them:
//
//   rows       rows passed over rows (the default, and the score every report always carries)
//   tests      the spec's six tests, as its Go suite grades them: a test passes when every one of
//              its rows passes; the score is tests passed over six (or weighted)
//   weighted   each test worth its weight in points; of them, the share `whole` is earned only when
//              the whole test passes, the rest by the share of its rows passed (each row weighing
//              what the pitfalls it guards weigh)
//
// Generated cases (--fresh) count apart: the share `fresh` of the headline (0 by default, so a
// seed cannot reorder students); the other parts (the corpus, a grader's private rows) count in
// their sections. Points are counted in hundredths, so every test's points add up exactly.

/** A scoring scheme, resolved: what a report's header records, so any reader recomputes the score. */
export interface Weighting {
  /** "rows", "tests", "default", or the weights file's name. */
  name: string;
  /** Each test's weight (relative; absent sections weigh 1), or "rows": each test weighs its rows' weights (rows passed over rows). */
  sections: "rows" | Partial<Record<Section, number>>;
  /** The share of a test's points earned only when every row of it passes: 1 grades it pass/fail as a Go test does, 0 by the share of rows passed. */
  whole: number;
  /** A row's weight by the pitfalls it guards, by mutant id ("s11": 5): the largest of them, 1 when none is named. */
  pitfalls: Record<string, number>;
  /** The share of the headline generated (--fresh) cases weigh, 0 to 1; 0: shown apart, not in the headline. */
  fresh: number;
}

/** One test of a weighted score: its points and what it earned, in hundredths of a point. */
export interface WeightedTest {
  /** A section, or "generated" for the fresh cases. */
  name: Section | "generated";
  /** Its weight as given (for "generated": the fresh share). */
  weight: number;
  rows: number;
  passed: number;
  /** Every row of it passed. */
  whole: boolean;
  /** Its points of 100, in hundredths. */
  max: number;
  /** What it earned, in hundredths. */
  earned: number;
}

/** The headline score under a weighting: in summary.weighted, recomputed by every reader. */
export interface WeightedScore {
  /** The headline, in percent, rounded down to two decimals. */
  percent: number;
  /** Tests passed whole, of the tests counted (sections with rows; generated cases apart). */
  testsPassed: number;
  tests: number;
  /** One entry per section with rows (seed order), then the generated cases when the run has any. */
  parts: WeightedTest[];
}

/** The built-in schemes. */
export const SCHEMES = ["rows", "tests"] as const;
export type SchemeName = (typeof SCHEMES)[number];

/** rows passed over rows: today's score. */
export function rowsWeighting(fresh = 0): Weighting {
  return { name: "rows", sections: "rows", whole: 0, pitfalls: {}, fresh };
}

/** The spec's six tests, as its Go suite grades them: tests passed over six. */
export function testsWeighting(fresh = 0): Weighting {
  return { name: "tests", sections: Object.fromEntries(SECTIONS.map((s) => [s, 1])), whole: 1, pitfalls: {}, fresh };
}

/**
 * The default weighting a grader can opt into (--weights default): each of the spec's tests worth
 * points by the harm its failure does downstream, half of them earned only when the whole test
 * passes (as the spec's Go suite grades it), half by the share of its rows passed. A broken Call
 * (a panic escaping, a tool run on invalid arguments) or a wrong hand-worked example costs at
 * least 12.5 points; a miss in one rule of the definitions or registration at most 10.
 */
export const DEFAULT_WEIGHTS: Record<Section, number> = {
  TestHandWorkedExample: 25,
  TestValidateTable: 20,
  TestCompileRejectsUnsupported: 10,
  TestRegisterRules: 10,
  TestDefinitionsSorted: 10,
  TestCallNeverPanics: 25,
};

export function defaultWeighting(fresh = 0): Weighting {
  return { name: "default", sections: { ...DEFAULT_WEIGHTS }, whole: 0.5, pitfalls: {}, fresh };
}

/** Whether this is plain rows passed over rows with nothing apart: its headline is the rows' total, and a report needs no record of it. */
export function isPlainRows(weighting: Weighting): boolean {
  return weighting.sections === "rows" && weighting.whole === 0 && Object.keys(weighting.pitfalls).length === 0;
}

/** "tests passed over six", "default weighting", "weights.json": the scheme in words, for a report. */
export function describeWeighting(w: Weighting): string {
  const fresh = w.fresh > 0 ? `, generated cases ${round(w.fresh * 100)}% of it` : "";
  if (w.name === "rows" && isPlainRows(w)) return `rows passed over rows${fresh}`;
  if (w.name === "tests" && w.whole === 1 && w.sections !== "rows" && Object.values(w.sections).every((v) => v === 1) && Object.keys(w.pitfalls).length === 0) return `the spec's tests passed${fresh}`;
  const sections = w.sections === "rows" ? "tests weighted by their rows" : "tests weighted " + SECTIONS.map((s) => `${s.replace(/^Test/, "")} ${weightOf(w, s)}`).join(", ");
  const pits = Object.keys(w.pitfalls).length ? `; rows guarding ${Object.entries(w.pitfalls).map(([id, v]) => `${id} ×${v}`).join(", ")}` : "";
  return `${w.name === "default" ? "the default weighting" : `weights ${w.name}`}: ${sections}; ${round(w.whole * 100)}% of a test's points need the whole test${pits}${fresh}`;
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

function weightOf(w: Weighting, section: Section): number {
  return w.sections === "rows" ? 1 : (w.sections[section] ?? 1);
}

/** A row's weight: the largest weight of the pitfalls it guards, 1 when none is named. */
export function rowWeight(row: Pick<RowResult, "pitfalls">, w: Weighting): number {
  let weight: number | undefined;
  for (const p of row.pitfalls) {
    const v = w.pitfalls[p];
    if (v !== undefined) weight = Math.max(weight ?? 0, v);
  }
  return weight ?? 1;
}

/** Hundredths that survive float error: 2899.9999999 is 2900, a true 2899.99 stays 2899. */
function floorCents(x: number): number {
  return Math.floor(x + 1e-7);
}

/**
 * The headline under a weighting, from the rows alone. Counted rows are those with a check of the
 * chosen tiers (as every score); generated rows count apart, as their own share.
 */
export function weightedScore(all: readonly RowResult[], options: ScoreOptions, w: Weighting): WeightedScore {
  const { parts, fraction } = weightedParts(all, options, w, 10_000);
  const tests = parts.filter((p) => p.name !== "generated");
  // rows passed over rows is exactly the rows' own percent; any other weighting is the sum of its points
  const percent = parts.length === 0 ? 100 : isPlainRows(w) ? floorCents(fraction * 10_000) / 100 : parts.reduce((a, p) => a + p.earned, 0) / 100;
  return { percent, testsPassed: tests.filter((p) => p.whole).length, tests: tests.length, parts };
}

/**
 * The tests of a weighting worth `cents` hundredths in all: each test's points (fixed by the
 * weights and the rows counted, the same for every student) and what it earned; and, for rows
 * passed over rows, the exact fraction passed (by its share for generated rows).
 */
export function weightedParts(all: readonly RowResult[], options: ScoreOptions, w: Weighting, cents: number): { parts: WeightedTest[]; fraction: number } {
  const counted = all.filter((row) => tiersOfRow(row, options).length > 0);
  const fresh = counted.filter((row) => partOf(row) === "fresh");
  const rest = counted.filter((row) => partOf(row) !== "fresh");
  const passes = (row: RowResult) => statusAt(row, options) === "passed";
  const sections = SECTIONS.filter((s) => rest.some((row) => row.section === s));
  const bySection = sections.map((s) => rest.filter((row) => row.section === s));
  const rowWeights = bySection.map((rows) => rows.map((row) => rowWeight(row, w)));
  const weights = sections.map((s, i) => (w.sections === "rows" ? rowWeights[i]!.reduce((a, b) => a + b, 0) : weightOf(w, s)));
  const freshShare = fresh.length === 0 ? 0 : sections.length === 0 ? 1 : w.fresh;
  const freshCents = Math.round(cents * freshShare);
  const maxes = apportionReal(cents - freshCents, weights);
  let sumWeights = 0;
  let sumPassed = 0;
  const parts: WeightedTest[] = sections.map((section, i) => {
    const rows = bySection[i]!;
    const ok = rows.map(passes);
    const passed = ok.filter(Boolean).length;
    const whole = passed === rows.length;
    const sum = rowWeights[i]!.reduce((a, b) => a + b, 0);
    const got = rowWeights[i]!.reduce((a, v, j) => a + (ok[j] ? v : 0), 0);
    sumWeights += sum;
    sumPassed += got;
    const share = sum === 0 ? (whole ? 1 : 0) : got / sum;
    const max = maxes[i]!;
    const earned = whole ? max : Math.min(max > 0 ? max - 1 : 0, floorCents(max * (1 - w.whole) * share));
    return { name: section, weight: weights[i]!, rows: rows.length, passed, whole, max, earned };
  });
  let freshFraction = 0;
  if (fresh.length > 0) {
    const passed = fresh.filter(passes).length;
    const whole = passed === fresh.length;
    freshFraction = passed / fresh.length;
    const earned = whole ? freshCents : Math.min(freshCents > 0 ? freshCents - 1 : 0, floorCents(freshCents * freshFraction));
    parts.push({ name: "generated", weight: freshShare, rows: fresh.length, passed, whole, max: freshCents, earned });
  }
  const rowsFraction = sumWeights === 0 ? 1 : sumPassed / sumWeights;
  return { parts, fraction: (1 - freshShare) * rowsFraction + freshShare * freshFraction };
}

/**
 * `total` split in proportion to real `weights`, in whole units, by largest remainders (ties to the
 * earlier): the parts add up to `total`, a zero weight gets zero. Depends on the weights alone, so
 * the same tests get the same points for every student.
 */
export function apportionReal(total: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  if (sum <= 0) return weights.map(() => 0);
  const exact = weights.map((w) => (total * w) / sum);
  const parts = exact.map((x) => floorCents(x));
  const order = exact.map((x, i) => ({ i, rest: x - parts[i]! })).sort((a, b) => b.rest - a.rest || a.i - b.i);
  let left = total - parts.reduce((a, b) => a + b, 0);
  for (const { i } of order) {
    if (left <= 0) break;
    if (weights[i] === 0) continue;
    parts[i]!++;
    left--;
  }
  return parts;
}

/** A weighting from a grader's weights file: the error (one line, without the file's name) or the weighting. */
export function parseWeights(text: string, name: string, catalog: readonly { id: string; pitfall: number | string }[]): Weighting | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `not JSON (${error instanceof Error ? error.message : String(error)})`;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return 'not a JSON object; write e.g. {"sections": {"TestCallNeverPanics": 30, …}, "whole": 0.5}';
  const v = value as Record<string, unknown>;
  const known = ["sections", "whole", "pitfalls", "fresh", "scoring"];
  const unknown = Object.keys(v).filter((key) => !known.includes(key));
  if (unknown.length > 0) return `unknown field ${JSON.stringify(unknown[0])} (the fields are ${known.join(", ")})`;
  const weight = (x: unknown, where: string): number | string => (typeof x === "number" && Number.isFinite(x) && x >= 0 ? x : `${where} must be a number of 0 or more, not ${JSON.stringify(x)}`);
  const share = (x: unknown, where: string): number | string => (typeof x === "number" && Number.isFinite(x) && x >= 0 && x <= 1 ? x : `${where} must be a number from 0 to 1, not ${JSON.stringify(x)}`);
  let base: Weighting;
  if (v.scoring === undefined) base = { ...defaultWeighting(), name };
  else if (v.scoring === "rows") base = { ...rowsWeighting(), name };
  else if (v.scoring === "tests") base = { ...testsWeighting(), name };
  else if (v.scoring === "default") base = { ...defaultWeighting(), name };
  else return `"scoring" must be "rows", "tests" or "default" (what the other fields start from), not ${JSON.stringify(v.scoring)}`;
  const out: Weighting = { ...base, pitfalls: { ...base.pitfalls } };
  if (v.sections !== undefined) {
    if (v.sections === "rows") out.sections = "rows";
    else if (typeof v.sections !== "object" || v.sections === null || Array.isArray(v.sections)) return `"sections" must be an object of weights by test name, or "rows"`;
    else {
      const sections: Partial<Record<Section, number>> = {};
      for (const [key, x] of Object.entries(v.sections)) {
        if (!(SECTIONS as readonly string[]).includes(key)) return `"sections": ${JSON.stringify(key)} is not one of the spec's tests (${SECTIONS.join(", ")})`;
        const n = weight(x, `"sections".${key}`);
        if (typeof n === "string") return n;
        sections[key as Section] = n;
      }
      // a test the file does not name weighs 1
      out.sections = Object.fromEntries(SECTIONS.map((s) => [s, sections[s] ?? 1]));
      if (SECTIONS.every((s) => (out.sections as Record<Section, number>)[s] === 0)) return `"sections": every weight is 0; give at least one test a weight`;
    }
  }
  if (v.whole !== undefined) {
    const n = share(v.whole, '"whole"');
    if (typeof n === "string") return n;
    out.whole = n;
  }
  if (v.fresh !== undefined) {
    const n = share(v.fresh, '"fresh"');
    if (typeof n === "string") return n;
    out.fresh = n;
  }
  if (v.pitfalls !== undefined) {
    if (typeof v.pitfalls !== "object" || v.pitfalls === null || Array.isArray(v.pitfalls)) return `"pitfalls" must be an object of weights by pitfall number ("8") or mutant id ("s11")`;
    for (const [key, x] of Object.entries(v.pitfalls)) {
      const n = weight(x, `"pitfalls".${key}`);
      if (typeof n === "string") return n;
      const ids = /^s\d{2,}$/.test(key) ? catalog.filter((m) => m.id === key).map((m) => m.id) : catalog.filter((m) => String(m.pitfall) === key.replace(/^pitfall\s*/, "")).map((m) => m.id);
      if (ids.length === 0) return `"pitfalls": ${JSON.stringify(key)} names no pitfall (a row of the spec's pitfall table, 1 to 10, a spec section like "§2.2", or a mutant id like "s11")`;
      for (const id of ids) out.pitfalls[id] = Math.max(out.pitfalls[id] ?? 0, n);
    }
  }
  return out;
}

/** Checks a weighting read from a report's header: the reason it is not one, or undefined. */
export function checkWeighting(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) return "not an object";
  const w = value as Record<string, unknown>;
  const num = (x: unknown, max = Infinity) => typeof x === "number" && Number.isFinite(x) && x >= 0 && x <= max;
  if (typeof w.name !== "string") return "no name";
  if (w.sections !== "rows") {
    if (typeof w.sections !== "object" || w.sections === null || Array.isArray(w.sections)) return "no section weights";
    for (const [key, x] of Object.entries(w.sections)) if (!(SECTIONS as readonly string[]).includes(key) || !num(x)) return `a bad section weight ${JSON.stringify(key)}`;
  }
  if (!num(w.whole, 1) || !num(w.fresh, 1)) return "whole or fresh is not a share from 0 to 1";
  if (typeof w.pitfalls !== "object" || w.pitfalls === null || Array.isArray(w.pitfalls) || !Object.values(w.pitfalls).every((x) => num(x))) return "bad pitfall weights";
  return undefined;
}
