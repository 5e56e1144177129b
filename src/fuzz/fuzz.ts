import fc from "fast-check";
import { statusOf, type ScoreOptions, type Status } from "../run/outcome.js";
import type { Send } from "../subjects/protocol.js";
import type { Level, ProfileName, Row, Tier } from "../corpus/rows.js";
import { runRow, type Check } from "../run/run-row.js";
import { ProtocolError } from "../subjects/subject.js";
import { causeOf, guarded } from "../run/runner.js";
import { SubjectError, type Session, type Subject } from "../subjects/subject.js";
import { CORE_DOMAIN, HARDENING_DOMAIN, type Domain } from "./domain.js";
import { findingKey, ruleMatches, sameWay, settledKey, symptomOf, type Judged, type Rule } from "./findings.js";
import { rowOf } from "./oracle.js";
import { probeArb, type Probe } from "./probes.js";
import { reduce } from "./reduce.js";

// Differential fuzzing: generated cases go to the subject and to the reference; each disagreement
// is shrunk by fast-check, then reduced, to a minimal case and handed back as a corpus row. The
// search goes on past a finding until the budget ends or enough distinct findings are made: a
// finding is distinct by its key (findings.ts), and keys set aside (--ignore, --known) are skipped.

export interface FuzzOptions extends ScoreOptions {
  profile: ProfileName;
  seed: number;
  /** Replays one case (and its shrinks) from a previous run's path: one finding at most, whatever its key. */
  path?: string;
  /** At most this many generated cases (shrinking not counted). */
  runs: number;
  /** Stops generating after this long (ms); a finding already made is still shrunk within the same limit. */
  timeMs: number;
  /** A guard on each request, for in-process subjects; stdio subjects have their own timeout. */
  requestTimeoutMs: number;
  /** Stops after this many distinct findings (default 1: the first, shrunk). */
  maxFindings?: number;
  /** Findings whose key one of these matches are set aside: counted, not reported (findings.ts, parseRule). */
  ignore?: readonly Rule[];
  /** Rows of earlier findings: each the subject still fails sets its key aside. */
  known?: readonly Row[];
  onCase?: (progress: Progress) => void;
}

export interface Progress {
  /** Generated cases so far. */
  cases: number;
  /** Shrinking steps of the finding being shrunk (0 when none is). */
  shrinks: number;
  /** Distinct findings so far. */
  findings: number;
}

export interface Finding {
  /** What makes it distinct: KIND/SYMPTOM[/KEYWORDS] (findings.ts). */
  key: string;
  row: Row;
  status: Status;
  /** The checks of the subject's answer (empty when it errored). */
  checks: Check[];
  error?: string;
  /** Replays this case alone: `--seed SEED --path PATH`. */
  path: string;
  shrinks: number;
  /** Generated cases when it was found. */
  after: number;
  /** Generated cases whose disagreement shrank to this key (this one included). */
  seen: number;
}

export interface FuzzOutcome {
  seed: number;
  cases: number;
  ms: number;
  /** True when --time stopped the run before --runs cases. */
  interrupted: boolean;
  /** Why the search ended. */
  stopped: "runs" | "time" | "findings" | "replay";
  /** Distinct findings, in the order they were found. */
  findings: Finding[];
  /** The first of `findings` (what a run reported before it went on past it). */
  finding?: Finding;
  /** Keys set aside by `ignore` or `known`, and how many generated cases shrank to each. */
  setAside: { key: string; cases: number }[];
  /** The keys `known` rows set aside (rows the subject now passes set none). */
  knownKeys: string[];
}

/** How long, and how many tries, the reduction after shrinking may take. */
const REDUCE_MS = 10_000;
const REDUCE_TRIES = 3_000;

/** The domain the tiers ask for: the hardening one widens every generator. */
export function domainFor(tiers: readonly Tier[]): Domain {
  return tiers.includes("hardening") ? HARDENING_DOMAIN : CORE_DOMAIN;
}

/** Fuzzes one subject. Throws SubjectError when it cannot start or keeps failing. */
export async function fuzz(subject: Subject, options: FuzzOptions): Promise<FuzzOutcome> {
  const started = Date.now();
  const deadline = started + options.timeMs;
  const maxFindings = options.path !== undefined ? 1 : (options.maxFindings ?? 1);
  const session = await subject.open(options.profile);
  try {
    const send = guarded(session.send, options.requestTimeoutMs);
    const scoring: ScoreOptions = { level: options.level, tiers: options.tiers };
    const judged = (probe: Probe) => judge(probe, session, send, options.profile, scoring);

    // the keys of earlier findings the subject still fails
    const knownKeys = new Set<string>();
    for (const row of options.known ?? []) {
      const known = await judgeRow(row, session, send, options.profile, scoring);
      if (known.status !== "passed") knownKeys.add(findingKey(row, symptomOf(known, scoring)));
    }
    const setAsideBy = (key: string) => options.path === undefined && (knownKeys.has(key) || (options.ignore ?? []).some((rule) => ruleMatches(rule, key)));

    const kinds = session.hello.capabilities.includes("registry") ? (["validate", "registry"] as const) : (["validate"] as const);
    const arb = probeArb({ domain: domainFor(options.tiers), kinds, profile: options.profile });
    const findings: Finding[] = [];
    const setAside = new Map<string, number>();
    let cases = 0;
    let shrinks = 0;
    let fatal: unknown;
    // the symptom of the case being shrunk; undefined while searching
    let shrinking: string | undefined;
    const report = () => options.onCase?.({ cases, shrinks, findings: findings.length });
    /** Counts a case under a key already found or set aside; false for a new key. */
    const tally = (key: string): boolean => {
      const found = findings.find((f) => f.key === key);
      if (found) found.seen++;
      else if (setAsideBy(key)) setAside.set(key, (setAside.get(key) ?? 0) + 1);
      else return false;
      return true;
    };
    const property = fc.asyncProperty(arb, async (probe) => {
      // a subject that can no longer be run ends the search: every later case passes
      if (fatal !== undefined) return true;
      if (shrinking !== undefined) shrinks++;
      else cases++;
      report();
      try {
        const outcome = await judged(probe);
        if (outcome.status === "passed") return true;
        const symptom = symptomOf(outcome, scoring);
        if (shrinking === undefined) {
          // a case whose key is known before shrinking, and already found or set aside, is only counted
          const settled = settledKey(outcome.row, symptom);
          if (settled !== undefined && tally(settled)) return true;
          shrinking = symptom;
          return false;
        }
        // a smaller case counts only if it still fails the same way: shrinking stays on one bug
        if (!sameWay(shrinking, symptom)) return true;
        shrinking = symptom;
        return false;
      } catch (error) {
        fatal = error;
        return true;
      }
    });

    // one fast-check run per finding: each starts at the case after the last one found
    let next = 0;
    let interrupted = false;
    let stopped: FuzzOutcome["stopped"] = options.path !== undefined ? "replay" : "runs";
    for (;;) {
      const left = deadline - Date.now();
      if (left <= 0) {
        interrupted = true;
        stopped = "time";
        break;
      }
      shrinking = undefined;
      shrinks = 0;
      const start = options.path ?? (next > 0 ? String(next) : undefined);
      const details = await fc.check(property, {
        seed: options.seed,
        ...(start !== undefined ? { path: start } : {}),
        numRuns: options.runs - cases,
        interruptAfterTimeLimit: left,
        markInterruptAsFailure: false,
      });
      if (fatal !== undefined) throw fatal;
      if (details.interrupted) interrupted = true;
      if (!details.failed || !details.counterexample) {
        if (interrupted && options.path === undefined) stopped = "time";
        break;
      }
      // fast-check's shrunk case, then reduced keyword by keyword while the subject still disagrees the same way
      const [shrunk] = details.counterexample;
      const first = await judged(shrunk);
      let target = first.status === "passed" ? undefined : symptomOf(first, scoring);
      const stillSameWay = async (probe: Probe) => {
        const outcome = await judged(probe);
        if (target === undefined || outcome.status === "passed") return false;
        const symptom = symptomOf(outcome, scoring);
        if (!sameWay(target, symptom)) return false;
        target = symptom;
        return true;
      };
      const reduced = target === undefined ? { probe: shrunk, tries: 0 } : await reduce(shrunk, stillSameWay, { deadline: Date.now() + REDUCE_MS, maxTries: REDUCE_TRIES });
      shrinks += reduced.tries;
      const final = await judged(reduced.probe);
      const key = findingKey(final.row, symptomOf(final, scoring));
      const path = options.path !== undefined && details.counterexamplePath ? joinPath(options.path, details.counterexamplePath) : (details.counterexamplePath ?? "");
      if (!tally(key)) findings.push({ key, ...final, path, shrinks, after: cases, seen: 1 });
      shrinks = 0;
      report();
      if (options.path !== undefined) break;
      if (findings.length >= maxFindings) {
        stopped = "findings";
        break;
      }
      if (cases >= options.runs) break;
      // fast-check's path starts with the index of the failing case among the generated ones
      next = Number(path.split(":")[0]) + 1;
    }
    return {
      seed: options.seed,
      cases,
      ms: Date.now() - started,
      interrupted,
      stopped,
      findings,
      ...(findings[0] ? { finding: findings[0] } : {}),
      setAside: [...setAside].map(([key, n]) => ({ key, cases: n })),
      knownKeys: [...knownKeys],
    };
  } finally {
    await session.close();
  }
}

/** A case against the subject: its row (from the reference) and how the subject did. Throws SubjectError only. */
export async function judge(
  probe: Probe,
  session: Session,
  send: Send,
  profile: ProfileName,
  scoring: ScoreOptions,
): Promise<Judged> {
  return judgeRow(await rowOf(probe, profile), session, send, profile, scoring);
}

/** A row against the subject. Throws SubjectError only. */
export async function judgeRow(row: Row, session: Session, send: Send, profile: ProfileName, scoring: ScoreOptions): Promise<Judged> {
  try {
    const checks = await runRow(row, send, profile);
    return { row, status: statusOf(checks, scoring), checks };
  } catch (error) {
    if (error instanceof SubjectError) throw error;
    const cause = error instanceof ProtocolError || error instanceof Error ? causeOf(error) : String(error);
    await session.recover();
    return { row, status: "errored", checks: [], error: cause };
  }
}

/** fast-check reports a replayed case's path from where the replay started. */
function joinPath(start: string, found: string): string {
  return found.startsWith(start) ? found : `${start}:${found}`;
}

export type { Level };
