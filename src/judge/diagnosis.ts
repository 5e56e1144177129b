import { statusOf, type RowResult, type ScoreOptions } from "../run/outcome.js";
import { LEVELS, type Level } from "../corpus/rows.js";
import { crashIn, deathOf, type Check } from "../run/run-row.js";
import { hangOf } from "../run/hangs.js";
import { evidenceOf, extraWays, isReordered, isRunOnText, isToldOnly, ranNoneThere, ranOtherwise, showsExactly, showsSame, type Failure } from "./symptom.js";
import { DEFAULT_WEIGHTS } from "./weighting.js";

// Diagnosis: which known pitfalls a subject's answers show, judged by their symptoms.
//
// A mutant's fingerprint is, for every row it fails (the reference passing it), how it fails
// there: its failing checks at the lowest failing level (symptom.ts's evidence), taken once at the
// strictest scoring, so a diagnosis does not depend on the tiers or level a run scores. A subject
// SHOWS a mutant's symptom on a row when it fails that row in the same sense (symptom.ts): the
// same wrong verdict whatever its wording, the right definitions in some unsorted order, the same
// missing error paths in any order. Errored and unanswerable rows are never evidence.
//
// A row is no evidence either way where the subject could not show the symptom: one the mutant
// gets only in a wrong order, when the subject passes it (a map's or a walk's order is sometimes
// the right one); one where the mutant runs a tool on text that is not JSON, when the subject runs
// none there (it parses before it validates); one where the subject crashed or hung and the
// mutant did not; and, for a mutant that only tells a call wrongly, one where the subject's tools
// ran otherwise (nothing was left to tell). Such a row counts when the symptom shows all the same.
// A symptom is judged where it shows first: on the mutant's rows whose failure is at its lowest
// level (a missing required property lets the value through; an element error loses its index),
// and on its core rows when the run has any (the spec's own rows; a run that adds catalog and
// hardening rows does not change the diagnosis). Over those rows:
//
//   hits  = rows where the subject shows the symptom
//   share = hits / rows
//
// A pitfall is named only on strong evidence: share ≥ 3/4, and two rows at least when it could be
// judged on two (a row set aside above does not lower that bar); one whose every row is harm on its
// own (fingerprint.harm: a tool that ran on invalid arguments) on those two rows, whatever its share.
// Candidates are ranked exact matches first, then by share, then by hits; walking
// that ranking, one is kept only if it shows on a row no kept one showed on, so a subject with two
// bugs gets both named and a symptom nested in a bigger one is not named twice. Mutants with the
// very same fingerprint on this run are listed together. Anything weaker is at most "closest".
//
// A row where the implementation crashed (threw instead of answering) is its own wrong answer:
// counted and said apart, never evidence of another pitfall.

export interface MutantInfo {
  /** "s03" */
  id: string;
  /** The seed's pitfall number (section 5), or the spec section of a rule the table does not list ("§2.2"). */
  pitfall: number | string;
  /** The mistake: "string length in UTF-8 bytes". */
  title: string;
  /** What is true of every implementation that makes it: "\"héllo\" is 6 long, so maxLength: 5 refuses it". */
  symptom: string;
}

export interface Fingerprint extends MutantInfo {
  /** Row id → how the mutant fails it (see symptom.ts). */
  answers: Readonly<Record<string, Failure[]>>;
  /**
   * Rows beyond its own where the same mistake, made wherever else the reference could make it
   * (its wider form, mutants/README.md), fails, and how. Never evidence for naming it; once it is
   * named, the failing rows of these that show the same are its own too.
   */
  wider?: Readonly<Record<string, Failure[]>>;
  /**
   * Each row showing it is harm on its own (a tool of an MCP server that ran on arguments its schema
   * refuses): it is named on the rows that show it, whatever its share, and beside any other named
   * on the same rows, since each says what to fix.
   */
  harm?: boolean;
  /**
   * Its rows that are no harm on their own (a valid call refused, beside the invalid ones run): they
   * never raise the two rows it must show on to be named, so more such rows (valid calls under
   * --mcp-run) never take away a diagnosis that held without them.
   */
  harmless?: readonly string[];
}

export interface Match extends MutantInfo {
  /** Rows, of those the symptom is judged on, where the subject shows it. */
  hits: number;
  /** Rows the symptom is judged on that the subject answered. */
  size: number;
  /** hits / size */
  share: number;
  /** |rows showing it| / |failing rows ∪ the mutant's rows|: how alike the two are, as a whole. */
  jaccard: number;
  /** Rows showing it that no better-ranked match showed on. */
  explains: number;
  /** The subject fails exactly the mutant's rows, with exactly its answers. */
  exact: boolean;
  /** Other mutants with the very same fingerprint on this run. */
  alike: string[];
  /** Every row where the subject shows the symptom. */
  rows: string[];
  /** `your failures match s03 (pitfall 2, string length in UTF-16 units): …` */
  sentence: string;
  /** Where the subject is wrong in more ways than the mutant, on rows showing it. */
  extra?: string[];
  /** `4 of its 4 rows show it here: …; shown on minLength/code-points, …` */
  detail: string;
}

export interface Diagnosis {
  /** How many rows the subject answered wrongly (errored rows apart). */
  failing: number;
  /** Rows with no usable answer (errored, or needing a capability the subject lacks): never evidence. */
  errored: number;
  /** Failing rows where the implementation crashed (threw, panicked or died) instead of answering. */
  crashed?: number;
  /** Failing rows where a data race stopped the process (the race detector, or Go's concurrent map access): counted in crashed too. */
  raced?: number;
  /** Failing rows the implementation never answered (it hung or looped past the timeout, after answering other rows). */
  hung?: number;
  /** Ranked: the best explanation first. */
  matches: Match[];
  /** Failing row ids no match explains. */
  unexplained: string[];
  /** The unexplained rows (crashes and hangs apart) by rule, the most harmful first: the weight of the spec test they fail. */
  groups?: Group[];
  /** Pitfalls shown on some of their rows but too few to be named, the nearest first, each with what it lacks. */
  partial?: PartialMatch[];
  /** The mutant whose symptom the subject shows most, when none is named. */
  closest?: { id: string; hits: number; size: number };
  /** Plain sentences, first the headline; fit for any reporter. */
  lines: string[];
}

/** Failing rows of one rule that no pitfall explains. */
export interface Group {
  rule: string;
  /** The spec test its first row belongs to, and that test's weight (the harm of failing it). */
  section: string;
  weight: number;
  rows: string[];
  /** One row of it, and why it fails: its first failing check, expected against got. */
  example: string;
  why: string;
}

/** A pitfall seen on too few of its rows to be named. */
export interface PartialMatch {
  id: string;
  title: string;
  hits: number;
  size: number;
  /** Its judged rows where the subject does not show it (up to 3). */
  lacks: string[];
}

/** Unexplained groups and partial matches said in lines, at most (the report's data holds them all). */
const MAX_GROUPS = 5;
/** A value quoted in a why, at most this many characters. */
const MAX_BRIEF = 80;

/** A pitfall is named only when the subject shows its symptom on at least this share of the rows it is judged on. */
export const MIN_SHARE = 0.75;

/** "pitfall 2" for a row of the seed's pitfall table; "spec §2.2" for a rule the table does not list. */
export function pitfallLabel(pitfall: number | string): string {
  if (typeof pitfall === "number") return `pitfall ${pitfall}`;
  return pitfall.startsWith("§") ? `spec ${pitfall}` : pitfall;
}

/** Diagnoses a run's results against the mutants' fingerprints. */
export function diagnose(results: readonly RowResult[], options: ScoreOptions, fingerprints: readonly Fingerprint[]): Diagnosis {
  const answered = new Map<string, RowResult>();
  let errored = 0;
  // rows not sent for a capability the subject does not offer, by capability: the implementation's lack, not the adapter's fault
  const unsupported = new Map<string, number>();
  for (const result of results) {
    if (result.status === "errored" || result.status === "skipped") errored++;
    else answered.set(result.id, result);
    if (result.status === "skipped") {
      const capability = /"([^"]+)" capability/.exec(String(result.error))?.[1] ?? "";
      unsupported.set(capability, (unsupported.get(capability) ?? 0) + 1);
    }
  }
  const failing = [...answered.values()].filter((result) => statusOf(result.checks, options) === "failed").map((result) => result.id);
  const failSet = new Set(failing);
  const crashes = failing.filter((id) => answered.get(id)!.checks.some((check) => !check.pass && crashIn(check.actual) !== undefined));
  const raced = crashes.filter((id) => answered.get(id)!.checks.some((check) => !check.pass && deathOf(check) !== undefined && check.note?.includes("a data race") === true));
  const hung = failing.filter((id) => answered.get(id)!.checks.some((check) => hangOf(check) !== undefined));

  const scored = fingerprints.map((fp) => judge(fp, answered, failSet));
  // strong evidence: three quarters of the rows it is judged on, and two at least when it could have been judged on two
  const candidates = scored
    .filter((s) => (s.fp.harm === true || s.share >= MIN_SHARE) && s.hits >= Math.max(1, Math.min(2, s.could)))
    .sort((a, b) => Number(b.exact) - Number(a.exact) || b.share - a.share || b.hits - a.hits || a.fp.id.localeCompare(b.fp.id));

  // a candidate alike another (the same fingerprint) shows on the same rows: it is never kept apart
  const shown = new Set<string>();
  const matches: Match[] = [];
  const keptKeys = new Set<string>();
  // harm nested in another is named beside it, unless that one is harm too and says it all: its rows hold
  // the nested one's, and it shows on three quarters of them (a server that validates nothing is not also told each rule)
  const saysAll = (big: Judged, small: Judged) => big.key !== small.key && big.fp.harm === true && big.share >= MIN_SHARE && Object.keys(small.fp.answers).every((id) => id in big.fp.answers);
  const named = candidates.filter((c) => !(c.fp.harm === true && candidates.some((big) => saysAll(big, c))));
  for (const c of named) {
    const fresh = c.showing.filter((id) => !shown.has(id));
    if (fresh.length === 0 && (c.fp.harm !== true || keptKeys.has(c.key))) continue;
    keptKeys.add(c.key);
    for (const id of fresh) shown.add(id);
    // true counts: what it explains is failing rows (a row shown only beyond the scored level or tiers is not one)
    const alike = candidates.filter((o) => o !== c && o.key === c.key).map((o) => o.fp.id);
    // a named pitfall takes its rows: an order pitfall every failing row that is only a wrong order (where its mutant's order
    // happened to be right too), and any pitfall the failing rows where its wider form fails, when they show the same
    const wider = c.fp.wider ?? {};
    const more = failing.filter((id) => {
      if (shown.has(id)) return false;
      const checks = answered.get(id)!.checks;
      return (c.orderOnly && isReordered(evidenceOf(checks)!)) || (id in wider && showsSame(wider[id]!, checks));
    });
    for (const id of more) shown.add(id);
    c.showing.push(...more);
    fresh.push(...more);
    c.rules = [...new Set([...c.rules, ...more.map((id) => answered.get(id)!.rule)])];
    // harm is named beside the others on the same rows, and explains them all the same
    const explained = c.fp.harm === true ? c.showing : fresh;
    matches.push(matchOf(c, alike, explained.filter((id) => failSet.has(id)).length, failSet.size));
  }

  const unexplained = failing.filter((id) => !shown.has(id));
  const diagnosis: Diagnosis = { failing: failSet.size, errored, ...(crashes.length > 0 ? { crashed: crashes.length } : {}), ...(raced.length > 0 ? { raced: raced.length } : {}), ...(hung.length > 0 ? { hung: hung.length } : {}), matches, unexplained, lines: [] };
  if (matches.length === 0) {
    const best = scored.filter((s) => s.hits > 0).sort((a, b) => b.hits - a.hits || b.share - a.share)[0];
    if (best && failSet.size > 0) diagnosis.closest = { id: best.fp.id, hits: best.hits, size: best.size };
    const evidence = failSet.size - crashes.length - hung.length;
    if (failSet.size === 0) {
      if (errored === 0) diagnosis.lines.push("no failures: nothing to diagnose");
    } else if (evidence > 0) {
      diagnosis.lines.push(
        `no known pitfall matches your ${evidence} failing row${plural(evidence)}` +
          (best ? ` (closest: ${best.fp.id}, ${best.fp.title}, but it shows on only ${best.hits} of its ${best.size} rows)` : ""),
      );
    }
  } else {
    if (failSet.size === 0) diagnosis.lines.push(`every row passes at the ${options.level} level; your answers beyond it show:`);
    for (const m of matches) diagnosis.lines.push(m.sentence);
    const rest = unexplained.filter((id) => !crashes.includes(id) && !hung.includes(id));
    if (rest.length > 0) diagnosis.lines.push(`${rest.length} failing row${plural(rest.length)} match${rest.length === 1 ? "es" : ""} no known pitfall, by rule, the most harmful first:`);
  }
  const groups = groupsOf(unexplained.filter((id) => !crashes.includes(id) && !hung.includes(id)), answered);
  if (groups.length > 0) {
    diagnosis.groups = groups;
    for (const g of groups.slice(0, MAX_GROUPS)) diagnosis.lines.push(`  ${g.rule} (${g.section}, weight ${g.weight}), ${g.rows.length} row${plural(g.rows.length)}: e.g. ${g.example}: ${g.why}`);
    if (groups.length > MAX_GROUPS) diagnosis.lines.push(`  … and ${groups.length - MAX_GROUPS} more rule${plural(groups.length - MAX_GROUPS)}`);
  }
  // every pitfall seen on some of its rows but not named, with what it lacks: those that show on a row no named one explains
  // (a named one, or one alike it, has every row it shows on explained)
  const partial = scored.filter((s) => s.hits > 0 && s.showing.some((id) => failSet.has(id) && !shown.has(id))).sort((a, b) => b.share - a.share || b.hits - a.hits || a.fp.id.localeCompare(b.fp.id));
  if (partial.length > 0) {
    diagnosis.partial = partial.map((p) => ({ id: p.fp.id, title: p.fp.title, hits: p.hits, size: p.size, lacks: p.lacking.slice(0, 3) }));
    if (matches.length > 0) {
      for (const p of diagnosis.partial.slice(0, MAX_GROUPS)) diagnosis.lines.push(`closest: ${p.id}, ${p.title}, shows on ${p.hits} of its ${p.size} rows; it lacks ${listed(p.lacks, 3)}`);
    }
  }
  // a crash a named pitfall explains (a Call that lets a panic through) is said by that pitfall
  const unexplainedCrashes = crashes.filter((id) => !shown.has(id) && !raced.includes(id));
  if (raced.length > 0) {
    const n = raced.length;
    diagnosis.lines.push(`a data race stopped your code on ${n} row${plural(n)} (the registry must be safe for concurrent use: guard its map with a mutex): ${listed(raced)}`);
  }
  if (unexplainedCrashes.length > 0) {
    const n = unexplainedCrashes.length;
    diagnosis.lines.push(`your implementation crashed on ${n} row${plural(n)} (it raised, panicked or died instead of answering; the spec's promise is an answer to every input): ${listed(unexplainedCrashes)}`);
  }
  if (hung.length > 0) {
    const n = hung.length;
    const ms = hung.map((id) => Number(/\d+/.exec(hangOf(answered.get(id)!.checks.find((c) => hangOf(c) !== undefined)!)!)![0]));
    const [most, least] = [Math.max(...ms), Math.min(...ms)];
    const quick = least < most ? ` (once it had hung on a few, each other request was given ${least} ms)` : "";
    diagnosis.lines.push(`your code did not answer in ${most} ms on these inputs (it hangs or loops), ${n} row${plural(n)}${quick}: ${listed(hung)}`);
  }
  const broken = errored - [...unsupported.values()].reduce((sum, n) => sum + n, 0);
  if (broken > 0) {
    diagnosis.lines.push(`${broken} row${plural(broken)} gave no usable answer (the adapter broke the protocol): fix the adapter first; they are no evidence of any pitfall`);
  }
  for (const [capability, n] of unsupported) {
    const what = capability === "" ? "a capability the implementation does not offer" : `the ${capability} capability, which the implementation does not offer`;
    diagnosis.lines.push(`${n} row${plural(n)} need${n === 1 ? "s" : ""} ${what}: not answerable, scored as not passed; no evidence of any pitfall`);
  }
  return diagnosis;
}

interface Judged {
  fp: Fingerprint;
  /** Rows it would be judged on had the subject answered each itself (no crash or hang hiding the symptom), its harmless ones put aside. */
  could: number;
  /** Rows the symptom is judged on, that the subject answered. */
  size: number;
  hits: number;
  share: number;
  /** Every row of the fingerprint where the subject shows the symptom (judged or not). */
  showing: string[];
  exact: boolean;
  jaccard: number;
  /** Its judged rows where the subject does not show it. */
  lacking: string[];
  /** Every row of its fingerprint is a wrong order only: an order pitfall. */
  orderOnly: boolean;
  /** Where the subject, on rows showing it, is wrong in more ways than the mutant. */
  extra: string[];
  /** The rules of the rows showing it, in corpus order. */
  rules: string[];
  /** The fingerprint restricted to the answered rows: equal keys, indistinguishable mutants. */
  key: string;
}

function judge(fp: Fingerprint, answered: ReadonlyMap<string, RowResult>, failSet: ReadonlySet<string>): Judged {
  // a row the mutant gets only in the wrong order says nothing of a subject that passes it: its own order may be right there
  // and one where it ran a tool on text that is not JSON, of a subject that ran none there (whatever it answered): it parses first
  // where the subject crashed or hung (its own wrong answer) and the mutant did not, or ran its tools otherwise where the mutant
  // only told a call wrongly, the symptom could not show: the row is no evidence against it (it counts when the symptom shows all the same)
  const ownAnswer = (check: Check) => !check.pass && (crashIn(check.actual) !== undefined || hangOf(check) !== undefined);
  const masked = (answer: readonly Failure[], checks: readonly Check[]) =>
    (!answer.some((failure) => crashIn(failure.actual) !== undefined) && checks.some(ownAnswer)) || (isToldOnly(answer) && ranOtherwise(answer, checks));
  const informative = (id: string) => {
    const answer = fp.answers[id]!;
    const checks = answered.get(id)!.checks;
    if (isReordered(answer) && evidenceOf(checks) === undefined) return false;
    return !(isRunOnText(answer) && ranNoneThere(answer, checks));
  };
  // an order pitfall shows as any wrong order, in whichever list: a walk of the subject's own may misplace
  // the paths where the mutant's misplaced only the messages, or the lines of a tool message
  const orderOnly = Object.values(fp.answers).every((answer) => isReordered(answer));
  const shows = (id: string) => {
    const checks = answered.get(id)!.checks;
    if (showsSame(fp.answers[id]!, checks)) return true;
    const own = evidenceOf(checks);
    // Stryker disable next-line ConditionalExpression: of an order pitfall, a row the subject passes is no evidence, never judged here
    return orderOnly && own !== undefined && isReordered(own);
  };
  const visible = (id: string) => !masked(fp.answers[id]!, answered.get(id)!.checks) || shows(id);
  const unmasked = Object.keys(fp.answers).filter((id) => answered.has(id) && informative(id));
  const rows = unmasked.filter(visible);
  // judged where it shows first: its core rows when any ran, and of those the ones failing at its lowest level
  const judgedOf = (list: readonly string[]) => {
    const core = list.filter((id) => answered.get(id)!.tier === "core");
    const pool = core.length > 0 ? core : list;
    const lowest = Math.min(...pool.map((id) => levelOf(fp.answers[id]!)));
    return pool.filter((id) => levelOf(fp.answers[id]!) === lowest);
  };
  const judged = judgedOf(rows);
  const showing = rows.filter(shows);
  const hits = judged.filter((id) => showing.includes(id)).length;
  const exact = [...failSet].every((id) => id in fp.answers) && rows.every((id) => showsExactly(fp.answers[id]!, answered.get(id)!.checks));
  const union = new Set([...failSet, ...rows]).size;
  const key = JSON.stringify([...rows].sort().map((id) => [id, fp.answers[id]]));
  const rules = [...new Set(showing.map((id) => answered.get(id)!.rule))];
  const lacking = judged.filter((id) => !showing.includes(id));
  // a row showing only a wrong order of its own is wrong in no more ways
  const extra = [...new Set(showing.flatMap((id) => (showsSame(fp.answers[id]!, answered.get(id)!.checks) ? extraWays(fp.answers[id]!, answered.get(id)!.checks) : [])))];
  const could = judgedOf(unmasked);
  return { fp, could: could.filter((id) => !fp.harmless?.includes(id)).length, size: judged.length, hits, share: judged.length ? hits / judged.length : 0, showing, lacking, orderOnly, extra, exact, jaccard: union ? showing.length / union : 0, rules, key };
}

function matchOf(c: Judged, alike: string[], explains: number, failing: number): Match {
  const { fp } = c;
  const detail = c.exact
    ? `an exact match: you fail the same ${c.hits} row${plural(c.hits)} it fails, the same way`
    : `it shows on ${c.hits} of the ${c.size} row${plural(c.size)} it is judged on` +
      (failing > 0 ? `; it explains ${explains} of your ${failing} failing row${plural(failing)}` : "") +
      `; seen in ${listed(c.rules, 4)}` +
      (c.extra.length > 0 ? `; and wrong in more ways beside it: ${listed(c.extra, 3)}` : "");
  return {
    id: fp.id,
    pitfall: fp.pitfall,
    title: fp.title,
    symptom: fp.symptom,
    hits: c.hits,
    size: c.size,
    share: round(c.share),
    jaccard: round(c.jaccard),
    explains,
    exact: c.exact,
    alike,
    rows: c.showing,
    ...(c.extra.length > 0 ? { extra: c.extra } : {}),
    sentence: `your failures match ${[fp.id, ...alike].join(" or ")} (${pitfallLabel(fp.pitfall)}, ${fp.title}): ${fp.symptom}`,
    detail,
  };
}

/** Unexplained rows by rule; the rule whose spec test weighs most first, then the bigger group, then corpus order. */
function groupsOf(ids: readonly string[], answered: ReadonlyMap<string, RowResult>): Group[] {
  const byRule = new Map<string, string[]>();
  for (const id of ids) {
    const rule = answered.get(id)!.rule;
    byRule.set(rule, [...(byRule.get(rule) ?? []), id]);
  }
  const groups = [...byRule].map(([rule, rows]): Group => {
    const first = answered.get(rows[0]!)!;
    return { rule, section: first.section, weight: DEFAULT_WEIGHTS[first.section], rows, example: first.id, why: whyOf(first) };
  });
  // a stable sort keeps corpus order among equals
  return groups.sort((a, b) => b.weight - a.weight || b.rows.length - a.rows.length);
}

/** Why a row fails, in one line: its first failing check, expected against got. */
function whyOf(result: RowResult): string {
  const check = result.checks.find((c) => !c.pass)!;
  return `${check.what}: expected ${brief(check.expected)}, got ${brief(check.actual)}`;
}

function brief(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > MAX_BRIEF ? `${text.slice(0, MAX_BRIEF - 1)}…` : text;
}

function levelOf(evidence: readonly Failure[]): number {
  return LEVELS.indexOf(evidence[0]!.level as Level);
}

function listed(ids: readonly string[], shown = 5): string {
  return ids.slice(0, shown).join(", ") + (ids.length > shown ? `, … (${ids.length - shown} more)` : "");
}

function plural(n: number): string {
  return n === 1 ? "" : "s";
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
