import { Help, InvalidArgumentError, Option, type Command } from "commander";
import { PROFILE_ALIASES, PROFILES, profileNamed } from "../corpus/rows.js";
import type { Sandbox } from "../subjects/sandbox/index.js";
import type { SubjectSpec } from "../harness/score-subject.js";
import { readReport, type ReadOptions } from "../report/read-report.js";
import { ReportError, type Report } from "../report/report.js";
import { REPORTERS, type ReporterName } from "../report/reporters/names.js";
import { TIERS, type Tier } from "../corpus/rows.js";
import { UsageError, writeFailure } from "./errors.js";

export { writeFailure };

// Command-line values shared by several commands.

/**
 * The longest wait any option may ask for: 596 h (24.8 days), under setTimeout's limit of
 * 2^31-1 ms (a longer timer fires at once; a harness that adds its own margin stays under it too).
 */
export const MAX_WAIT_MS = 596 * 3_600_000;

/** `30s`, `2m`, `1500ms`, `1h`; a bare number is seconds. Returns milliseconds, from 1 ms to `max` (default MAX_WAIT_MS, 596h). */
export function parseDuration(value: string, flag: string, max: number = MAX_WAIT_MS): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|min|h)?\s*$/i.exec(value);
  const unit: Record<string, number> = { ms: 1, s: 1000, m: 60_000, min: 60_000, h: 3_600_000 };
  const ms = match ? Math.round(Number(match[1]) * unit[(match[2] ?? "s").toLowerCase()]!) : NaN;
  if (!Number.isFinite(ms) || ms < 1) throw new UsageError(`${flag}: ${JSON.stringify(value)} is not a duration (30s, 5m, 1500ms; a bare number is seconds)`);
  if (ms > max) throw new UsageError(`${flag}: ${JSON.stringify(value)} is longer than ${formatWait(max)}, the longest it takes`);
  return ms;
}

/** A wait in the largest unit that says it exactly enough: 596h, 60 min, 1500 ms. */
export function formatWait(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}

/** The largest whole number any count option takes unless it says less. */
export const MAX_COUNT = 2 ** 31 - 1;

/** A whole number from `min` to `max`; undefined stays undefined (the option was not given). */
export function intInRange(value: string | undefined, flag: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value.trim());
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`${flag}: ${JSON.stringify(value)} is not a whole number from ${min} to ${max}`);
  }
  return n;
}

/** A whole number of at least 1 and at most `max` (default 2^31-1); undefined stays undefined (the option was not given). */
export function positiveInt(value: string | undefined, flag: string, max: number = MAX_COUNT): number | undefined {
  return intInRange(value, flag, 1, max);
}

/** A number (not necessarily whole) above 0 and at most `max`. */
export function positiveNumber(value: string, flag: string, max: number): number {
  const n = Number(value.trim());
  if (value.trim() === "" || !Number.isFinite(n) || n <= 0 || n > max) throw new UsageError(`${flag}: ${JSON.stringify(value)} is not a number above 0 and at most ${max}`);
  return n;
}

/**
 * Help without `(default: [])` after a repeatable option whose description already says what
 * giving none means: an empty list is shown as no default at all.
 */
export function withoutEmptyDefaults(command: Command): Command {
  const plain = new Help();
  return command.configureHelp({
    optionDescription: (option) => {
      if (!Array.isArray(option.defaultValue) || option.defaultValue.length > 0) return plain.optionDescription(option);
      const shown = Object.create(option) as typeof option;
      shown.defaultValue = undefined;
      return plain.optionDescription(shown);
    },
  });
}

/** A generator seed: a 32-bit whole number, as fast-check takes it. */
export function parseSeed(value: string, flag = "--seed"): number {
  const n = Number(value);
  if (!/^-?\d+$/.test(value.trim()) || n < -(2 ** 31) || n >= 2 ** 31) throw new UsageError(`${flag}: ${JSON.stringify(value)} is not a whole number between -2147483648 and 2147483647`);
  return n;
}

/** A new seed, for a run that was given none (it is printed, so the run can be replayed). */
export function newSeed(): number {
  return Math.floor(Math.random() * 2 ** 31);
}

/** `--profile`: a profile's name, or an older name for one (`pointer` is the lesson profile). */
export function profileOption(description = "contract profile: ag02 (seed 000, the default) or lesson (seed 001; pointer is its older name)"): Option {
  return new Option("--profile <profile>", description).default("ag02").argParser((value: string) => {
    const profile = profileNamed(value);
    if (!profile) throw new InvalidArgumentError(`Allowed choices are ${[...PROFILES, ...Object.keys(PROFILE_ALIASES)].join(", ")}.`);
    return profile;
  });
}

/**
 * The subject a command names: a built-in name, --subject COMMAND (with its folder) or --module PATH;
 * undefined when none is given, a usage error when more than one is.
 */
export function subjectSpecOf(positional: string | undefined, flags: { subject?: string; module?: string; submission?: string }, sandbox?: Sandbox): SubjectSpec | undefined {
  const given = [positional !== undefined, flags.subject !== undefined, flags.module !== undefined].filter(Boolean).length;
  if (given > 1) throw new UsageError("give one subject: a built-in name (reference, mutant:sNN), --subject COMMAND or --module PATH");
  if (flags.subject !== undefined) return { command: flags.subject, ...(sandbox ? { sandbox } : {}), ...(flags.submission !== undefined ? { cwd: flags.submission } : {}) };
  if (flags.module !== undefined) return { module: flags.module };
  return positional as SubjectSpec | undefined;
}


/** Reads and checks a report for a command (scores recomputed; with a key, the signature verified); a bad one is a usage error (exit 2). */
export function readReportOrExplain(path: string, options: ReadOptions = {}): Report {
  try {
    return readReport(path, options);
  } catch (error) {
    if (error instanceof ReportError) throw new UsageError(error.message);
    throw error;
  }
}

/** `--tier` values: tier names, or `all`; none given is `fallback`. */
export function parseTiers(values: string[], fallback: Tier[]): Tier[] {
  if (values.length === 0) return fallback;
  if (values.includes("all")) return [...TIERS];
  for (const value of values) {
    if (!(TIERS as readonly string[]).includes(value)) throw new UsageError(`--tier: ${JSON.stringify(value)} is not a tier (${TIERS.join(", ")}, or all)`);
  }
  return TIERS.filter((tier) => values.includes(tier));
}

export function parseReporters(values: string[], fallback: ReporterName[]): ReporterName[] {
  if (values.length === 0) return fallback;
  for (const value of values) {
    if (!(REPORTERS as readonly string[]).includes(value)) throw new UsageError(`--reporter: ${JSON.stringify(value)} is not a reporter (${REPORTERS.join(", ")}, or json=- for stdout)`);
  }
  return REPORTERS.filter((r) => values.includes(r));
}


export function percentArg(value: string): number {
  const n = Number(value.trim().replace(/%$/, ""));
  if (value.trim() === "" || !Number.isFinite(n) || n < 0 || n > 100) throw new UsageError(`--min-score: ${JSON.stringify(value)} is not a percent between 0 and 100`);
  return n;
}
