import fc from "fast-check";
import { statusOf, type ScoreOptions, type Status } from "../harness/outcome.js";
import type { Send } from "../harness/protocol.js";
import type { Level, ProfileName, Row, Tier } from "../harness/rows.js";
import { ProtocolError, runRow, type Check } from "../harness/run-row.js";
import { causeOf, guarded } from "../harness/runner.js";
import { SubjectError, type Session, type Subject } from "../harness/subjects/subject.js";
import { CORE_DOMAIN, HARDENING_DOMAIN, type Domain } from "./domain.js";
import { rowOf } from "./oracle.js";
import { probeArb, type Probe } from "./probes.js";
import { reduce } from "./reduce.js";

// Differential fuzzing: generated cases go to the subject and to the reference; the first
// disagreement is shrunk by fast-check to a minimal case and handed back as a corpus row.

export interface FuzzOptions extends ScoreOptions {
  profile: ProfileName;
  seed: number;
  /** Replays one case (and its shrinks) from a previous run's path. */
  path?: string;
  /** At most this many generated cases (shrinking not counted). */
  runs: number;
  /** Stops generating after this long (ms); a finding already made is still shrunk within the same limit. */
  timeMs: number;
  /** A guard on each request, for in-process subjects; stdio subjects have their own timeout. */
  requestTimeoutMs: number;
  onCase?: (progress: { cases: number; shrinks: number }) => void;
}

export interface Finding {
  row: Row;
  status: Status;
  /** The checks of the subject's answer (empty when it errored). */
  checks: Check[];
  error?: string;
  /** Replays this case alone: `--seed SEED --path PATH`. */
  path: string;
  shrinks: number;
}

export interface FuzzOutcome {
  seed: number;
  cases: number;
  ms: number;
  /** True when --time stopped the run before --runs cases. */
  interrupted: boolean;
  finding?: Finding;
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
  const session = await subject.open(options.profile);
  try {
    const send = guarded(session.send, options.requestTimeoutMs);
    const kinds = session.hello.capabilities.includes("registry") ? (["validate", "registry"] as const) : (["validate"] as const);
    const arb = probeArb({ domain: domainFor(options.tiers), kinds });
    const scoring: ScoreOptions = { level: options.level, tiers: options.tiers };
    let cases = 0;
    let shrinks = 0;
    let failed = false;
    let fatal: unknown;
    const property = fc.asyncProperty(arb, async (probe) => {
      // a subject that can no longer be run ends the search: every later case passes
      if (fatal !== undefined) return true;
      if (failed) shrinks++;
      else cases++;
      options.onCase?.({ cases, shrinks });
      try {
        const outcome = await judge(probe, session, send, options.profile, scoring);
        if (outcome.status === "passed") return true;
        failed = true;
        return false;
      } catch (error) {
        fatal = error;
        return true;
      }
    });
    const details = await fc.check(property, {
      seed: options.seed,
      ...(options.path !== undefined ? { path: options.path } : {}),
      numRuns: options.runs,
      interruptAfterTimeLimit: options.timeMs,
      markInterruptAsFailure: false,
    });
    if (fatal !== undefined) throw fatal;
    const outcome: FuzzOutcome = { seed: options.seed, cases, ms: Date.now() - started, interrupted: details.interrupted };
    if (!details.failed || !details.counterexample) return outcome;
    // fast-check's shrunk case, then reduced keyword by keyword while the subject still disagrees the same way
    const [shrunk] = details.counterexample;
    const first = await judge(shrunk, session, send, options.profile, scoring);
    const sameWay = async (probe: Probe) => (await judge(probe, session, send, options.profile, scoring)).status === first.status;
    const { probe, tries } = first.status === "passed" ? { probe: shrunk, tries: 0 } : await reduce(shrunk, sameWay, { deadline: Date.now() + REDUCE_MS, maxTries: REDUCE_TRIES });
    shrinks += tries;
    const final = await judge(probe, session, send, options.profile, scoring);
    const path = options.path !== undefined && details.counterexamplePath ? joinPath(options.path, details.counterexamplePath) : (details.counterexamplePath ?? "");
    return { ...outcome, ms: Date.now() - started, finding: { ...final, path, shrinks } };
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
): Promise<{ row: Row; status: Status; checks: Check[]; error?: string }> {
  const row = await rowOf(probe, profile);
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
