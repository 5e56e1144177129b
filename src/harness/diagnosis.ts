import { LEVELS } from "./rows.js";
import type { RowResult, ScoreOptions } from "./outcome.js";

// Diagnosis: which known pitfalls explain a subject's failures, judged by its answers.
//
// A mutant's fingerprint is the answers it gives where the reference's differ: for each row it
// fails, the signature of its failure (the failing checks at the lowest level that fails, with
// what came back), under the same profile, level and tiers as the run being diagnosed. A subject's
// row is evidence for a mutant only when the subject fails it THE SAME WAY: failing the same row
// for another reason (a wrong bound where the mutant miscounts characters) is no evidence at all.
// Errored and unanswerable rows are never evidence: the subject gave no answer.
//
// For a subject failing the rows F (answered), and a fingerprint M restricted to the rows the
// subject answered:
//
//   same    = rows of M that the subject fails the same way
//   share   = |same| / |M|           how much of the pitfall's signature the subject shows
//   jaccard = |same| / |F ∪ M|       how alike the two are, as a whole
//
// A pitfall is named ("your failures match") only on strong evidence: share ≥ 3/4 and at least
// two rows the same way (or the whole fingerprint, when the run selected fewer than two of its
// rows). Candidates are ranked by Jaccard, then by |same|, then by id; walking that ranking, a
// candidate is kept only if it explains a failing row no kept candidate explained yet, so a
// subject with two bugs gets two pitfalls and a fingerprint nested in a bigger one is not named
// twice. Mutants with identical fingerprints on this run cannot be told apart: they are listed
// together. Anything weaker is at most "closest", never "your failures match".

export interface MutantInfo {
  /** "s03" */
  id: string;
  /** The seed's pitfall number (section 5), or the spec section of a rule the table does not list ("§2.2"). */
  pitfall: number | string;
  /** The pitfall's short title: "string length in bytes". */
  title: string;
  /** The seed's symptom text: "\"héllo\" too long for maxLength: 5". */
  symptom: string;
}

export interface Fingerprint extends MutantInfo {
  /** Row id → the signature of the mutant's failure there (see signatureOf). */
  answers: Readonly<Record<string, string>>;
}

export interface Match extends MutantInfo {
  /** Rows the subject fails the way the mutant does. */
  hits: number;
  /** Rows of the fingerprint the subject answered. */
  size: number;
  /** hits / size */
  share: number;
  jaccard: number;
  /** Failing rows this match explains that no better-ranked match did. */
  explains: number;
  /** The subject fails exactly the mutant's rows, each the same way. */
  exact: boolean;
  /** Other mutants with the very same fingerprint on this run. */
  alike: string[];
  /** `your failures match s03 (pitfall 2, string length in bytes): "héllo" too long for maxLength: 5` */
  sentence: string;
  /** `4 of its 4 rows fail here the same way; it explains 4 of your 6 failing rows` */
  detail: string;
}

export interface Diagnosis {
  /** How many rows the subject answered wrongly (errored rows apart). */
  failing: number;
  /** Rows with no usable answer (errored, or needing a capability the subject lacks): never evidence. */
  errored: number;
  /** Ranked: the best explanation first. */
  matches: Match[];
  /** Failing row ids no match explains. */
  unexplained: string[];
  /** The mutant whose signature the subject shows most, when none is named. */
  closest?: { id: string; hits: number; size: number };
  /** Plain sentences, first the headline; fit for any reporter. */
  lines: string[];
}

/** A pitfall is named only when the subject fails at least this share of its rows the same way. */
export const MIN_SHARE = 0.75;
/** …and at least this many rows (or the whole fingerprint, if smaller). */
export const MIN_HITS = 2;

/** "pitfall 2" for a row of the seed's pitfall table; "spec §2.2" for a rule the table does not list. */
export function pitfallLabel(pitfall: number | string): string {
  if (typeof pitfall === "number") return `pitfall ${pitfall}`;
  return pitfall.startsWith("§") ? `spec ${pitfall}` : pitfall;
}

/**
 * How a row failed, as a comparable text: the failing checks (what, and what came back) at the
 * lowest level that fails, among the checks that count. Undefined when the row passed or gave no
 * answer (errored, skipped).
 */
export function signatureOf(result: Pick<RowResult, "status" | "checks">, options: ScoreOptions): string | undefined {
  if (result.status === "errored" || result.status === "skipped") return undefined;
  for (const level of LEVELS.slice(0, LEVELS.indexOf(options.level) + 1)) {
    const failing = result.checks.filter((check) => check.level === level && options.tiers.includes(check.tier) && !check.pass);
    if (failing.length > 0) return JSON.stringify(failing.map((check) => [check.what, check.actual]));
  }
  return undefined;
}

/** Diagnoses a run's results against the mutants' fingerprints, taken under the same options. */
export function diagnose(results: readonly RowResult[], options: ScoreOptions, fingerprints: readonly Fingerprint[]): Diagnosis {
  const answered = new Map<string, string | undefined>();
  let errored = 0;
  for (const result of results) {
    if (result.status === "errored" || result.status === "skipped") errored++;
    else answered.set(result.id, signatureOf(result, options));
  }
  const failSet = new Set([...answered].filter(([, signature]) => signature !== undefined).map(([id]) => id));
  const adapterLine = errored > 0 ? [`${errored} row${plural(errored)} gave no usable answer (errored or not answerable): fix the adapter first; they are no evidence of any pitfall`] : [];
  if (failSet.size === 0) {
    return { failing: 0, errored, matches: [], unexplained: [], lines: [...(errored > 0 ? [] : ["no failures: nothing to diagnose"]), ...adapterLine] };
  }

  const scored = fingerprints
    .map((fp) => {
      const rows = Object.keys(fp.answers).filter((id) => answered.has(id));
      const same = rows.filter((id) => answered.get(id) === fp.answers[id]);
      const union = failSet.size + rows.length - same.length;
      const key = rows.sort().map((id) => `${id}\u0000${fp.answers[id]}`).join("\n");
      return { fp, rows, same, key, share: rows.length ? same.length / rows.length : 0, jaccard: union ? same.length / union : 0 };
    })
    .filter((s) => s.rows.length > 0);

  const strong = (s: (typeof scored)[number]) => s.share >= MIN_SHARE && s.same.length >= Math.min(MIN_HITS, s.rows.length);
  const candidates = scored
    .filter((s) => s.same.length > 0 && strong(s))
    .sort((a, b) => b.jaccard - a.jaccard || b.same.length - a.same.length || a.fp.id.localeCompare(b.fp.id, "en", { numeric: true }));

  const explained = new Set<string>();
  const matches: Match[] = [];
  const named = new Set<string>();
  for (const c of candidates) {
    if (named.has(c.fp.id)) continue;
    const fresh = c.same.filter((id) => !explained.has(id));
    if (fresh.length === 0) continue;
    for (const id of fresh) explained.add(id);
    const alike = candidates.filter((o) => o !== c && o.key === c.key).map((o) => o.fp.id);
    for (const id of alike) named.add(id);
    named.add(c.fp.id);
    const hits = c.same.length;
    const exact = hits === failSet.size && hits === c.rows.length;
    matches.push({
      id: c.fp.id,
      pitfall: c.fp.pitfall,
      title: c.fp.title,
      symptom: c.fp.symptom,
      hits,
      size: c.rows.length,
      share: round(c.share),
      jaccard: round(c.jaccard),
      explains: fresh.length,
      exact,
      alike,
      sentence: `your failures match ${[c.fp.id, ...alike].join(" or ")} (${pitfallLabel(c.fp.pitfall)}, ${c.fp.title}): ${c.fp.symptom}`,
      detail: exact
        ? `an exact match: you fail the same ${hits} row${plural(hits)} it fails, the same way`
        : `${hits} of its ${c.rows.length} row${plural(c.rows.length)} fail here the same way; it explains ${fresh.length} of your ${failSet.size} failing row${plural(failSet.size)}`,
    });
  }

  const unexplained = [...failSet].filter((id) => !explained.has(id));
  const diagnosis: Diagnosis = { failing: failSet.size, errored, matches, unexplained, lines: [] };
  if (matches.length === 0) {
    const best = scored.filter((s) => s.same.length > 0).sort((a, b) => b.same.length - a.same.length || b.share - a.share)[0];
    if (best) diagnosis.closest = { id: best.fp.id, hits: best.same.length, size: best.rows.length };
    diagnosis.lines.push(
      `no known pitfall matches your ${failSet.size} failing row${plural(failSet.size)}` +
        (best ? ` (closest: ${best.fp.id}, ${best.fp.title}, but only ${best.same.length} of its ${best.rows.length} rows fail here the same way)` : ""),
    );
  } else {
    for (const m of matches) diagnosis.lines.push(m.sentence);
    if (unexplained.length > 0) {
      const shown = unexplained.slice(0, 5).join(", ") + (unexplained.length > 5 ? `, … (${unexplained.length - 5} more)` : "");
      diagnosis.lines.push(`${unexplained.length} failing row${plural(unexplained.length)} match${unexplained.length === 1 ? "es" : ""} no known pitfall: ${shown}`);
    }
  }
  diagnosis.lines.push(...adapterLine);
  return diagnosis;
}

function plural(n: number): string {
  return n === 1 ? "" : "s";
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
