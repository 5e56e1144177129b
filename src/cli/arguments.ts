import { InvalidArgumentError, Option } from "commander";
import { PROFILE_ALIASES, PROFILES, profileNamed } from "../harness/rows.js";
import { UsageError } from "./errors.js";

// Command-line values shared by several commands.

/** `30s`, `2m`, `1500ms`, `1h`; a bare number is seconds. Returns milliseconds. */
export function parseDuration(value: string, flag: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|min|h)?\s*$/i.exec(value);
  const unit: Record<string, number> = { ms: 1, s: 1000, m: 60_000, min: 60_000, h: 3_600_000 };
  const ms = match ? Math.round(Number(match[1]) * unit[(match[2] ?? "s").toLowerCase()]!) : NaN;
  if (!Number.isSafeInteger(ms) || ms < 1) throw new UsageError(`${flag}: ${JSON.stringify(value)} is not a duration (30s, 5m, 1500ms; a bare number is seconds)`);
  return ms;
}

/** A whole number of at least 1; undefined stays undefined (the option was not given). */
export function positiveInt(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1) throw new UsageError(`${flag}: ${JSON.stringify(value)} is not a positive whole number`);
  return Number(value);
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
