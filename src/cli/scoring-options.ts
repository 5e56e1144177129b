import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { Option, type Command } from "commander";
import { defaultWeighting, parseWeights, rowsWeighting, SCHEMES, testsWeighting, type SchemeName, type Weighting } from "../judge/weighting.js";
import { loadCatalog } from "../mutants/catalog.js";
import { UsageError } from "./errors.js";

// --scoring, --weights and --fresh-weight: how the headline is scored (docs/scoring.md, "Choosing
// the score"). score records the choice in report.jsonl; report and merge can score a report again
// under another one, since every scheme is computed from the rows alone.

export interface ScoringFlags {
  scoring?: string;
  weights?: string;
  freshWeight?: string;
}

/** Adds the three options to a command. */
export function addScoringOptions(command: Command, what = "the headline"): Command {
  return command
    .addOption(new Option("--scoring <scheme>", `how ${what} is scored: rows (rows passed over rows, the default) or tests (the spec's six tests, each passed when all its rows pass: tests passed over six)`).choices(SCHEMES))
    .option("--weights <file>", `score ${what} by weights: "default" (the documented default weighting: each test worth points by the harm its failure does, half of them earned only when the whole test passes) or a JSON weights file (docs/scoring.md): weights per test, per pitfall, the share needing the whole test`)
    .option("--fresh-weight <share>", "the share of the headline generated (--fresh) cases weigh, from 0 to 1 (default 0: counted apart, never in the headline, so a seed cannot reorder students)");
}

/** Whether any of the three was given. */
export function scoringGiven(flags: ScoringFlags): boolean {
  return flags.scoring !== undefined || flags.weights !== undefined || flags.freshWeight !== undefined;
}

/** The weighting the flags ask for (rows passed over rows when none is given); a bad file or value is a UsageError (exit 2, one line). */
export function weightingFrom(flags: ScoringFlags): Weighting {
  const fresh = flags.freshWeight === undefined ? undefined : share(flags.freshWeight);
  let weighting: Weighting;
  if (flags.weights === undefined) weighting = (flags.scoring as SchemeName | undefined) === "tests" ? testsWeighting() : rowsWeighting();
  else {
    if (flags.scoring !== undefined) throw new UsageError(`--scoring and --weights: give one (a weights file says how it scores with "scoring": "rows", "tests" or "default")`);
    weighting = flags.weights === "default" ? defaultWeighting() : readWeights(flags.weights);
  }
  return fresh === undefined ? weighting : { ...weighting, fresh };
}

function readWeights(path: string): Weighting {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new UsageError(`--weights ${path}: cannot read the file (${code === "ENOENT" ? "no such file" : code === "EISDIR" ? "a folder, not a file" : code === "EACCES" ? "permission denied" : String(code ?? error)})`);
  }
  const parsed = parseWeights(text, basename(path), loadCatalog());
  if (typeof parsed === "string") throw new UsageError(`--weights ${path}: ${parsed.replace(/\s+/g, " ")}`);
  return parsed;
}

function share(value: string): number {
  const n = Number(value.trim().replace(/%$/, ""));
  const fraction = value.trim().endsWith("%") ? n / 100 : n;
  if (value.trim() === "" || !Number.isFinite(fraction) || fraction < 0 || fraction > 1) throw new UsageError(`--fresh-weight: ${JSON.stringify(value)} is not a share from 0 to 1 (e.g. 0.2, or 20%)`);
  return fraction;
}
