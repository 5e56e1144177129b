// Diagnosis: which of the seed's pitfalls explain a subject's failures.
//
// Each mutant carries a fingerprint: the ids of the rows it fails, under the same profile, level
// and tiers as the run being diagnosed (a fingerprint taken at another level would be unfair).
// For a subject failing the set F, and a fingerprint M restricted to the rows that ran:
//
//   hits    = |F ∩ M|            rows of the pitfall's signature the subject fails too
//   recall  = hits / |M|         how much of the signature the subject shows
//   jaccard = hits / |F ∪ M|     how alike the two sets are, as a whole
//
// A mutant is a candidate when recall ≥ 1/2: the subject shows at least half of that pitfall's
// symptoms (a real implementation may have the bug on some paths only; less than half is more
// likely coincidence). Candidates are ranked by Jaccard (the closest overall match first; it
// prefers "your failures ARE s01" over "they contain s09's few rows"), then by hits, then by id.
// Walking that ranking, a candidate is kept only if it explains a failing row no kept candidate
// explained yet, so a subject with two bugs gets two pitfalls, and a fingerprint nested in a
// bigger one is not named twice. Mutants whose fingerprints are identical on this run cannot be
// told apart; they are listed together.

export interface MutantInfo {
  /** "s03" */
  id: string;
  /** The seed's pitfall number (section 5), e.g. 2. */
  pitfall: number | string;
  /** The pitfall's short title: "string length in bytes". */
  title: string;
  /** The seed's symptom text: "\"héllo\" too long for maxLength: 5". */
  symptom: string;
}

export interface Fingerprint extends MutantInfo {
  /** The ids of the rows this mutant fails. */
  rows: readonly string[];
}

export interface Match extends MutantInfo {
  hits: number;
  /** Rows of the fingerprint among the rows that ran. */
  size: number;
  recall: number;
  jaccard: number;
  /** Failing rows this match explains that no better-ranked match did. */
  explains: number;
  /** The subject fails exactly the mutant's rows. */
  exact: boolean;
  /** Other mutants with the very same fingerprint on this run. */
  alike: string[];
  /** `your failures match s03 (pitfall 2, string length in bytes): "héllo" too long for maxLength: 5` */
  sentence: string;
  /** `4 of its 4 rows fail here; it explains 4 of your 6 failing rows` */
  detail: string;
}

export interface Diagnosis {
  /** How many rows the subject did not pass. */
  failing: number;
  /** Ranked: the best explanation first. */
  matches: Match[];
  /** Failing row ids no match explains. */
  unexplained: string[];
  /** The closest mutant when nothing matched (for "closest: …"). */
  closest?: { id: string; hits: number; size: number };
  /** Plain sentences, first the headline; fit for any reporter. */
  lines: string[];
}

/** The candidate threshold on recall; see above. */
export const MIN_RECALL = 0.5;

/**
 * Diagnoses a subject failing `failing` (row ids) among the rows that ran (`ran`), against
 * the mutants' fingerprints.
 */
export function diagnose(failing: readonly string[], ran: readonly string[], fingerprints: readonly Fingerprint[]): Diagnosis {
  const ranSet = new Set(ran);
  const failSet = new Set(failing.filter((id) => ranSet.has(id)));
  if (failSet.size === 0) {
    return { failing: 0, matches: [], unexplained: [], lines: ["no failures: nothing to diagnose"] };
  }

  const scored = fingerprints
    .map((fp) => {
      const rows = [...new Set(fp.rows)].filter((id) => ranSet.has(id));
      const hits = rows.filter((id) => failSet.has(id)).length;
      const union = failSet.size + rows.length - hits;
      return { fp, rows, key: rows.slice().sort().join("\n"), hits, recall: rows.length ? hits / rows.length : 0, jaccard: union ? hits / union : 0 };
    })
    .filter((s) => s.rows.length > 0);

  const candidates = scored
    .filter((s) => s.hits > 0 && s.recall >= MIN_RECALL)
    .sort((a, b) => b.jaccard - a.jaccard || b.hits - a.hits || a.fp.id.localeCompare(b.fp.id, "en", { numeric: true }));

  const explained = new Set<string>();
  const matches: Match[] = [];
  const named = new Set<string>();
  for (const c of candidates) {
    if (named.has(c.fp.id)) continue;
    const fresh = c.rows.filter((id) => failSet.has(id) && !explained.has(id));
    if (fresh.length === 0) continue;
    for (const id of fresh) explained.add(id);
    const alike = candidates.filter((o) => o !== c && o.key === c.key).map((o) => o.fp.id);
    for (const id of alike) named.add(id);
    named.add(c.fp.id);
    const exact = c.hits === failSet.size && c.hits === c.rows.length;
    matches.push({
      id: c.fp.id,
      pitfall: c.fp.pitfall,
      title: c.fp.title,
      symptom: c.fp.symptom,
      hits: c.hits,
      size: c.rows.length,
      recall: round(c.recall),
      jaccard: round(c.jaccard),
      explains: fresh.length,
      exact,
      alike,
      sentence: sentenceOf(c.fp, alike),
      detail: exact
        ? `an exact match: you fail the same ${c.hits} row${plural(c.hits)} it fails`
        : `${c.hits} of its ${c.rows.length} row${plural(c.rows.length)} fail here; it explains ${fresh.length} of your ${failSet.size} failing row${plural(failSet.size)}`,
    });
  }

  const unexplained = [...failSet].filter((id) => !explained.has(id));
  const diagnosis: Diagnosis = { failing: failSet.size, matches, unexplained, lines: [] };
  if (matches.length === 0) {
    const best = scored.filter((s) => s.hits > 0).sort((a, b) => b.recall - a.recall || b.hits - a.hits)[0];
    if (best) diagnosis.closest = { id: best.fp.id, hits: best.hits, size: best.rows.length };
    diagnosis.lines.push(
      `no known pitfall matches your ${failSet.size} failing row${plural(failSet.size)}` +
        (best ? ` (closest: ${best.fp.id}, ${best.fp.title}, but only ${best.hits} of its ${best.rows.length} rows fail here)` : ""),
    );
    return diagnosis;
  }
  for (const m of matches) diagnosis.lines.push(m.sentence);
  if (unexplained.length > 0) {
    const shown = unexplained.slice(0, 5).join(", ") + (unexplained.length > 5 ? `, … (${unexplained.length - 5} more)` : "");
    diagnosis.lines.push(`${unexplained.length} failing row${plural(unexplained.length)} match${unexplained.length === 1 ? "es" : ""} no known pitfall: ${shown}`);
  }
  return diagnosis;
}

function sentenceOf(info: MutantInfo, alike: string[]): string {
  const who = [info.id, ...alike].join(" or ");
  return `your failures match ${who} (pitfall ${info.pitfall}, ${info.title}): ${info.symptom}`;
}

function plural(n: number): string {
  return n === 1 ? "" : "s";
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
