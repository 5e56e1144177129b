import { isActive, partOf, type RowResult, type ScoreOptions } from "../run/outcome.js";
import type { Fingerprint } from "./diagnosis.js";

// A table of the public corpus's answers in front of weak code: every corpus row passes, and the
// generated (fresh) cases fall through to the weak code. Totals hide it when the fallback is good
// (a registry that ignores only `required` still passes 96% of fresh cases), so the comparison is
// made pitfall by pitfall: a pitfall whose generated cases the subject fails while it passes every
// corpus row the pitfall fails is the table's signature. An honest implementation with that bug
// fails the corpus's rows of it too (the corpus kills every mutant), so it is never flagged; a
// generated case failed because of a bug the subject shows on the corpus is not counted.

/** Generated cases of a pitfall a subject must fail, at least, before it is a sign. */
export const MIN_FRESH_FAILED = 2;
/** And the share of that pitfall's generated cases they must be. */
export const MIN_FRESH_SHARE = 0.5;
/** Corpus rows of the pitfall it must pass, at least, for the contrast to mean anything. */
export const MIN_CORPUS_PASSED = 2;

export interface TableSign {
  /** The mutant's id (s06). */
  id: string;
  /** Its corpus rows, every one passed. */
  corpusPassed: number;
  /** Its generated cases answered, and those failed that no bug seen on the corpus explains. */
  fresh: number;
  freshFailed: number;
}

/** The pitfalls whose corpus rows all pass while their generated cases fail (see above). */
export function tableSigns(results: readonly RowResult[], options: ScoreOptions, fingerprints: readonly Fingerprint[]): TableSign[] {
  const answered = results.filter((result) => result.status === "passed" || result.status === "failed");
  const corpus = answered.filter((result) => partOf(result) !== "fresh");
  const fresh = answered.filter((result) => partOf(result) === "fresh");
  if (corpus.length === 0 || fresh.length === 0) return [];
  const failed = (result: RowResult) => result.checks.some((check) => isActive(check, options) && !check.pass);
  // the pitfalls the subject shows on the corpus: a generated case one of them fails is theirs
  const shown = fingerprints.filter((print) => corpus.some((result) => print.answers[result.id] !== undefined && failed(result)));
  const explained = (id: string) => shown.some((print) => print.answers[id] !== undefined);
  const signs: TableSign[] = [];
  for (const print of fingerprints) {
    if (shown.includes(print)) continue;
    const corpusPassed = corpus.filter((result) => print.answers[result.id] !== undefined).length;
    const its = fresh.filter((result) => print.answers[result.id] !== undefined);
    const freshFailed = its.filter((result) => failed(result) && !explained(result.id)).length;
    if (corpusPassed >= MIN_CORPUS_PASSED && freshFailed >= MIN_FRESH_FAILED && freshFailed / its.length >= MIN_FRESH_SHARE) {
      signs.push({ id: print.id, corpusPassed, fresh: its.length, freshFailed });
    }
  }
  return signs;
}

/** The flag a report carries for them, or undefined when there are none. */
export function tableFlag(signs: readonly TableSign[]): string | undefined {
  if (signs.length === 0) return undefined;
  const each = signs.map((sign) => `${sign.id}: all ${sign.corpusPassed} corpus rows passed, ${sign.freshFailed} of ${sign.fresh} generated cases failed`).join("; ");
  return `FLAGGED: corpus rows passed where generated cases of the same pitfall fail (${each}): the signature of answers recorded for the public corpus`;
}
