import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { CorpusError, loadCorpus } from "../corpus/load.js";
import type { Row } from "../corpus/rows.js";
import { UsageError, writeFailure } from "../errors.js";
import { writeFileAtomic } from "../report/directory.js";
import { parseRule, type Rule } from "./findings.js";

// fuzz's files: --known (findings set aside), --save (findings appended as corpus rows), and the
// --ignore rules, each refused with one clear line when it cannot be used.


export function ruleOf(text: string, where: string): Rule {
  try {
    return parseRule(text);
  } catch (error) {
    throw new UsageError(`${where}: ${(error as Error).message}; a rule is KIND[/SYMPTOM[/KEYWORDS]] (compile/accepts/format) or a keyword (format): see fuzz --help`);
  }
}

export interface Known {
  rows: Row[];
  rules: Rule[];
}

/** --known FILE: corpus rows (--save), an earlier --json output, or rules one a line. */
export function readKnown(file: string): Known {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new UsageError(`--known ${file}: ${(error as { code?: string }).code === "ENOENT" ? "no such file" : `cannot read: ${writeFailure(error)}`}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // not JSON: rules, one a line
    const rules = text
      .split("\n")
      .map((line, i) => [line.replace(/#.*/, "").trim(), i + 1] as const)
      .filter(([line]) => line !== "")
      .map(([line, n]) => ruleOf(line, `--known ${file}:${n}`));
    return { rows: [], rules };
  }
  if (Array.isArray(value)) return { rows: knownRows(file, value), rules: [] };
  const findings = (value as { findings?: unknown } | null)?.findings;
  if (Array.isArray(findings) && findings.every((f) => typeof (f as { key?: unknown } | null)?.key === "string")) {
    return { rows: [], rules: findings.map((f, i) => ruleOf((f as { key: string }).key, `--known ${file}: finding ${i + 1}`)) };
  }
  throw new UsageError(`--known ${file}: neither corpus rows (a JSON array, as --save writes) nor the --json output of fuzz (an object with "findings")`);
}

/** The rows of a --known file, each checked by the corpus's row schema (a row saved twice counts once). */
export function knownRows(file: string, rows: unknown[]): Row[] {
  const byId = new Map<string, unknown>();
  for (const row of rows) byId.set(String((row as { id?: unknown } | null)?.id), row);
  const dir = mkdtempSync(join(tmpdir(), "tc-known-"));
  try {
    const name = basename(file).endsWith(".json") ? basename(file) : `${basename(file)}.json`;
    writeFileSync(join(dir, name), JSON.stringify([...byId.values()]));
    return loadCorpus(dir, { prefix: dirname(file) });
  } catch (error) {
    if (error instanceof CorpusError) throw new UsageError(`--known: ${error.message.split("\n")[0]}`);
    throw error;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The rows already in a --save file: a JSON array, or nothing yet. */
export function readSaved(file: string): unknown[] {
  if (!existsSync(file)) return [];
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new UsageError(`--save ${file}: ${error instanceof SyntaxError ? "not JSON" : writeFailure(error)}; give a corpus file (a JSON array of rows) or a new file`);
  }
  if (!Array.isArray(value)) throw new UsageError(`--save ${file}: not a corpus file (a JSON array of rows)`);
  return value;
}

/** Appends rows in the corpus's layout, one row a line; a row whose id is already there is not added again. Returns how many were added. */
export function save(file: string, found: Row[]): number {
  const rows = readSaved(file);
  const ids = new Set(rows.map((row) => (row as { id?: unknown } | null)?.id));
  const added = found.filter((row) => !ids.has(row.id));
  try {
    writeFileAtomic(file, `[\n${[...rows, ...added].map((r) => `  ${JSON.stringify(r)}`).join(",\n")}\n]\n`);
  } catch (error) {
    throw new UsageError(`--save ${file}: cannot write: ${writeFailure(error)}`);
  }
  return added.length;
}
