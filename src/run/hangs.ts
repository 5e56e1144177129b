import type { Tier } from "../corpus/rows.js";
import type { Session } from "../subjects/subject.js";
import type { RowResult } from "./outcome.js";
import type { Check } from "./run-row.js";

// A subject that stops answering after the handshake: its code hangs or loops on some inputs.
// Such a row is the student's failure, told as such, and once it has happened a few times the
// rest of the run is decided with a short deadline.

/**
 * A row the implementation never answered: the process had answered other rows (so the adapter
 * speaks the protocol), then took longer than `ms` on this one. Its actual is `{hung: TEXT}`; it
 * fails at verdict level, as the student's (a Validate that loops on a pattern), never errored.
 */
export function hangCheck(tier: Tier, ms: number, quick?: string): Check {
  const text = `no answer in ${ms} ms`;
  return { level: "verdict", tier, what: "an answer", expected: `an answer within ${ms} ms`, actual: { hung: text }, pass: false, note: `your code did not answer in ${ms} ms on this input (it hangs or loops); the process was stopped${quick ? `; ${quick}` : ""}` };
}

/** The text of a hang check (its actual is `{hung: TEXT}`), else undefined. */
export function hangOf(check: Check): string | undefined {
  const actual = check.actual;
  if (typeof actual !== "object" || actual === null || Array.isArray(actual)) return undefined;
  const record = actual as Record<string, unknown>;
  return Object.keys(record).length === 1 && typeof record.hung === "string" ? record.hung : undefined;
}

/** Rows a subject may leave unanswered at the full timeout before the rest get a short one (Hangs). */
export const HANGS_BEFORE_QUICK = 3;
/** The short deadline's floor, and its multiple of the slowest row answered so far. */
const QUICK_MIN_MS = 500;
const QUICK_FACTOR = 10;

/**
 * A row that timed out after the subject answered other rows is the subject's failure (it hangs or
 * loops on that input), never errored: the adapter speaks the protocol, the student's code does not
 * return. After HANGS_BEFORE_QUICK such rows, every request of the run gets a short deadline (ten
 * times the slowest row answered, at least 0.5 s, never more than the timeout), so a looping
 * submission costs about what an honest one does instead of the timeout on every row.
 */
export class Hangs {
  private answered = 0;
  private timedOut = 0;
  private slowestMs = 0;
  quickMs: number | undefined;
  /** Set once a row timed out on its retry too: the subject hangs, whatever the machine's load, so no timeout is retried any more. */
  private confirmed = false;
  private quickNote: string | undefined;

  constructor(private readonly sessions: () => readonly Session[]) {}

  /** A row just run: counted (answered, or timed out), and returned as it counts. */
  judge(result: RowResult): RowResult {
    const ms = timeoutOf(result);
    if (ms === undefined) {
      if (result.status === "passed" || result.status === "failed") {
        this.answered++;
        this.slowestMs = Math.max(this.slowestMs, result.ms);
      }
      return result;
    }
    this.timedOut++;
    if (result.retried !== undefined) this.confirmed = true;
    if (this.timedOut === HANGS_BEFORE_QUICK && this.quickMs === undefined) {
      this.quickMs = Math.min(ms, Math.max(QUICK_MIN_MS, Math.ceil(this.slowestMs * QUICK_FACTOR)));
      this.quickNote = `after ${HANGS_BEFORE_QUICK} rows with no answer in ${ms} ms, every other request got ${this.quickMs} ms`;
      for (const session of this.sessions()) session.shorten?.(this.quickMs);
    }
    return this.settle(result);
  }

  /** Whether a timeout may still be retried on a starved machine: not once the subject is known to hang. */
  get retrying(): boolean {
    return this.quickMs === undefined && !this.confirmed;
  }

  /** The result as it counts, counting nothing: a timeout once some row was answered fails as a hang. */
  settle(result: RowResult): RowResult {
    const ms = timeoutOf(result);
    if (ms === undefined || this.answered === 0) return result;
    const { error: _error, stderr: _stderr, ...rest } = result;
    return { ...rest, status: "failed", checks: [hangCheck(result.tier, ms, ms === this.quickMs ? this.quickNote : undefined)] };
  }
}

/** The deadline of an errored row that got no reply in time, else undefined. */
function timeoutOf(result: RowResult): number | undefined {
  if (result.status !== "errored" || result.error === undefined) return undefined;
  const match = /^no reply to .* within (\d+) ms/.exec(result.error);
  return match ? Number(match[1]) : undefined;
}

