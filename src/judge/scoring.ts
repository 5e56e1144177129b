import { isActive, partOf, statusOf, tiersOfRow, type RowResult, type ScoreOptions, type Status } from "../run/outcome.js";
import { LEVELS, PARTS, SECTIONS, TIERS, type Level, type Part, type Section, type Tier } from "../corpus/rows.js";

// Scores: the share of rows passed, per section, per tier and per level. A row counts once,
// whatever its number of checks. Every check has its own tier: a tier's tally holds the rows
// with checks of that tier, each judged on those checks alone (a core row whose wording differs
// from ours passes in the core tally and fails in the catalog one). An errored row (the subject broke the protocol, crashed or hung)
// and a skipped row (the subject cannot answer it: a capability it lacks) both count as not
// passed; they are tallied apart from wrong answers so a reader can tell the two apart.
// Parts cut the same rows another way: by where they came from (the shipped corpus, a grader's
// private rows, generated ones), so a private or fresh score is seen beside the corpus one.

export interface Tally {
  rows: number;
  passed: number;
  /** Answered, wrongly. */
  failed: number;
  /** No usable answer: protocol error, crash, timeout. */
  errored: number;
  /** Not answerable by this subject (a missing capability); scored as failed. */
  skipped: number;
  /** passed / rows, in percent, rounded down to two decimals (100 only when every row passed). */
  percent: number;
}

export interface SectionScore {
  total: Tally;
  /** Only the tiers the section has rows of; each judged on that tier's checks. */
  tiers: Partial<Record<Tier, Tally>>;
}

export interface Scores {
  level: Level;
  tiers: Tier[];
  /** Every row, at the chosen level: the headline score. */
  total: Tally;
  /** In the seed's section order; only sections with rows. */
  sections: Partial<Record<Section, SectionScore>>;
  /** Rows with checks of each tier, judged on that tier's checks alone, at the chosen level; only tiers with rows. */
  byTier: Partial<Record<Tier, Tally>>;
  /** The same rows at each level (a level includes the ones before it). */
  byLevel: Record<Level, Tally>;
  /** The same rows by part (corpus, private, fresh), at the chosen level and tiers; only parts with rows. */
  byPart: Partial<Record<Part, Tally>>;
}

/** A row's status at a level: errored and skipped rows stay so; the others are judged by their checks. */
export function statusAt(result: RowResult, options: ScoreOptions): Status {
  if (result.status === "errored" || result.status === "skipped") return result.status;
  return statusOf(result.checks, options);
}

/** Whether a row counts as passed at a level. */
export function passes(result: RowResult, options: ScoreOptions): boolean {
  return statusAt(result, options) === "passed";
}

export function emptyTally(): Tally {
  return { rows: 0, passed: 0, failed: 0, errored: 0, skipped: 0, percent: 100 };
}

function add(tally: Tally, status: Status): void {
  tally.rows++;
  tally[status]++;
  tally.percent = percentOf(tally.passed, tally.rows);
}

/** passed/rows in percent, rounded down to 2 decimals; an empty set is 100. */
export function percentOf(passed: number, rows: number): number {
  if (rows === 0) return 100;
  // whole numbers first: (passed / rows) * 10_000 can land a hair below an exact hundredth (0.29 → 2899.99…)
  return Math.floor((passed * 10_000) / rows) / 100;
}

/** Scores the results; a row with nothing of the chosen tiers to check (a hardening row in a core run) is not counted. */
export function score(all: readonly RowResult[], options: ScoreOptions): Scores {
  // each row's tiers, worked out once: a row with none is not counted
  const results = all.map((result) => ({ result, tiers: tiersOfRow(result, options) })).filter((r) => r.tiers.length > 0);
  const total = emptyTally();
  const sections: Partial<Record<Section, SectionScore>> = {};
  const byTier: Partial<Record<Tier, Tally>> = {};
  const byLevel = Object.fromEntries(LEVELS.map((level) => [level, emptyTally()])) as Record<Level, Tally>;
  const byPart: Partial<Record<Part, Tally>> = {};
  for (const part of PARTS) if (results.some((r) => partOf(r.result) === part)) byPart[part] = emptyTally();
  // insertion order is the seed's order, whatever the order of the results
  for (const section of SECTIONS) if (results.some((r) => r.result.section === section)) sections[section] = { total: emptyTally(), tiers: {} };
  for (const tier of TIERS) if (results.some((r) => r.tiers.includes(tier))) byTier[tier] = emptyTally();
  for (const { result, tiers } of results) {
    const status = statusAt(result, options);
    add(total, status);
    const section = sections[result.section]!;
    add(section.total, status);
    for (const tier of tiers) {
      // judged on that tier's checks alone; an answer cut short before any of them is not passed there
      const reached = result.checks.some((check) => check.tier === tier && isActive(check, options));
      const alone = reached ? statusAt(result, { ...options, tiers: [tier] }) : status;
      add((section.tiers[tier] ??= emptyTally()), alone);
      add(byTier[tier]!, alone);
    }
    for (const level of LEVELS) add(byLevel[level], statusAt(result, { ...options, level }));
    add(byPart[partOf(result)]!, status);
  }
  for (const section of Object.values(sections)) section.tiers = ordered(section.tiers, TIERS);
  return { level: options.level, tiers: [...options.tiers], total, sections, byTier, byLevel, byPart };
}

function ordered<K extends string, V>(record: Partial<Record<K, V>>, keys: readonly K[]): Partial<Record<K, V>> {
  const out: Partial<Record<K, V>> = {};
  for (const key of keys) if (record[key] !== undefined) out[key] = record[key];
  return out;
}

/** The ids of the rows not passed at a level (failed, errored or skipped), in the given order. */
export function failingIds(results: readonly RowResult[], options: ScoreOptions): string[] {
  return results.filter((result) => tiersOfRow(result, options).length > 0 && !passes(result, options)).map((result) => result.id);
}

/**
 * "98.38%", "100%": the percent as computed (rounded down to 2 decimals, so never "100%" below it),
 * shown as is. Every report shows this same number for a run: terminal, report.jsonl, results.json
 * (with 100 points), summary.md, report.html, class.csv.
 */
export function formatPercent(percent: number): string {
  return `${percent}%`;
}
