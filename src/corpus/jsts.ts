import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { JsonSyntaxError, parseJSON } from "../json/parse.js";
import { isObject, member, stringify, type JsonValue } from "../json/value.js";
import { compile, SchemaError } from "../schema/compile.js";
import { ANNOTATIONS, KEYWORDS } from "../schema/keywords/index.js";
import { CorpusError } from "./load.js";
import type { ValidateRow } from "./rows.js";

// JSON-Schema-Test-Suite import: a folder laid out like the official suite
// (tests/draft2020-12/*.json, each an array of {description, schema, tests: [{description, data, valid}]})
// becomes verdict-only validate rows, keeping only the groups whose schemas stay inside the subset.

/** Where the suite keeps the draft's tests, under the folder given. */
export const JSTS_TESTS = join("tests", "draft2020-12");

export interface LeftOut {
  /** `file: group description`. */
  group: string;
  /** Why: the first keyword outside the subset, a boolean subschema, or the reference's refusal. */
  reason: string;
}

export interface JstsImport {
  /** One verdict-only row per test of a kept group. */
  rows: ValidateRow[];
  /** Groups kept. */
  kept: number;
  leftOut: LeftOut[];
}

/**
 * Reads `dir/tests/draft2020-12/*.json` (or `dir` itself when it holds the files directly).
 * Texts are read with the reference's exact parser and written back with their literals as they
 * were (`1.0` stays `1.0`), so the rows carry the suite's own numbers.
 */
export function importJsts(dir: string): JstsImport {
  const folder = testsFolder(dir);
  const files = readdirSync(folder)
    .filter((name) => name.endsWith(".json") && statSync(join(folder, name)).isFile())
    .sort();
  if (files.length === 0) throw new CorpusError(`no suite files (*.json) in ${folder}`);
  const rows: ValidateRow[] = [];
  const leftOut: LeftOut[] = [];
  const ids = new Set<string>();
  let kept = 0;
  for (const file of files) {
    const stem = file.slice(0, -".json".length);
    const groups = readSuiteFile(join(folder, file), file);
    for (const [index, group] of groups.entries()) {
      const where = `${file}: group ${index + 1}`;
      const description = stringField(group, "description", where);
      const label = `${file}: ${description}`;
      const schema = field(group, "schema", where);
      const tests = field(group, "tests", where);
      if (!Array.isArray(tests)) throw new CorpusError(`${where}: "tests" must be an array`);
      const reason = outsideSubset(schema, "#");
      if (reason) {
        leftOut.push({ group: label, reason });
        continue;
      }
      const schemaText = stringify(schema);
      try {
        compile(schemaText);
      } catch (error) {
        if (!(error instanceof SchemaError)) throw error;
        leftOut.push({ group: label, reason: `refused by the reference: ${error.message}` });
        continue;
      }
      kept++;
      const groupId = unique(`validate/jsts/${slug(stem)}/${slug(description)}`, ids);
      for (const [t, test] of tests.entries()) {
        const at = `${where}, test ${t + 1}`;
        const name = stringField(test, "description", at);
        const valid = field(test, "valid", at);
        if (typeof valid !== "boolean") throw new CorpusError(`${at}: "valid" must be a boolean`);
        const id = unique(`${groupId}/${slug(name)}`, ids);
        rows.push({
          id,
          section: "TestValidateTable",
          kind: "validate",
          rule: `jsts/${stem}`,
          tier: "hardening",
          pitfalls: [],
          why: `JSON-Schema-Test-Suite ${file}: ${description}: ${name}`,
          schemaText,
          instance: stringify(field(test, "data", at)),
          // the suite knows only the verdict: one placeholder error stands for "invalid"
          expect: { errors: valid ? [] : [{ path: [], message: "invalid" }] },
          verdictOnly: true,
          source: `jsts:${file}`,
        });
      }
    }
  }
  return { rows, kept, leftOut };
}

/** One line for a terminal: how many groups were kept, and what left the others out. */
export function describeJsts(result: JstsImport): string {
  const reasons = new Map<string, number>();
  for (const { reason } of result.leftOut) {
    const key = reason.replace(/ at #.*$/, "");
    reasons.set(key, (reasons.get(key) ?? 0) + 1);
  }
  const why = [...reasons].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([reason, n]) => `${n} ${reason}`);
  return (
    `JSON-Schema-Test-Suite: ${result.kept} groups kept (${result.rows.length} tests), ${result.leftOut.length} left out` +
    (why.length > 0 ? `: ${why.join(", ")}` : "")
  );
}

/**
 * Why a schema is outside the subset, or undefined when it is inside at every level:
 * a boolean (or any non-object) subschema, or a keyword the subset does not have.
 * Keywords are visited in code-point order, depth first, like the reference's compiler.
 */
export function outsideSubset(schema: JsonValue, at: string): string | undefined {
  if (typeof schema === "boolean") return `boolean subschema at ${at}`;
  if (!isObject(schema)) return `non-object subschema at ${at}`;
  for (const name of Object.keys(schema).sort()) {
    if (ANNOTATIONS.has(name)) continue;
    if (!KEYWORDS.has(name)) return `keyword "${name}" at ${at}`;
    const value = schema[name]!;
    const below = `${at}/${escape(name)}`;
    let reason: string | undefined;
    if (name === "properties" && isObject(value)) {
      for (const [key, sub] of Object.entries(value)) if ((reason = outsideSubset(sub, `${below}/${escape(key)}`))) return reason;
    } else if (name === "items" || (name === "additionalProperties" && typeof value !== "boolean")) {
      if ((reason = outsideSubset(value, below))) return reason;
    } else if (name === "anyOf" && Array.isArray(value)) {
      for (const [i, sub] of value.entries()) if ((reason = outsideSubset(sub, `${below}/${i}`))) return reason;
    }
  }
  return undefined;
}

function testsFolder(dir: string): string {
  const nested = join(dir, JSTS_TESTS);
  try {
    if (statSync(nested).isDirectory()) return nested;
  } catch {
    // not the suite's layout: take the folder itself
  }
  try {
    if (statSync(dir).isDirectory()) return dir;
  } catch {
    // reported below
  }
  throw new CorpusError(`${dir}: not a JSON-Schema-Test-Suite folder (expected ${JSTS_TESTS}/*.json)`);
}

function readSuiteFile(path: string, name: string): JsonValue[] {
  let value: JsonValue;
  try {
    value = parseJSON(readFileSync(path, "utf8"));
  } catch (error) {
    if (error instanceof JsonSyntaxError) throw new CorpusError(`${name}: ${error.message}`);
    throw error;
  }
  if (!Array.isArray(value)) throw new CorpusError(`${name}: a suite file must be a JSON array of groups`);
  return value;
}

function field(value: JsonValue, name: string, where: string): JsonValue {
  if (!isObject(value)) throw new CorpusError(`${where}: must be an object`);
  const found = member(value, name);
  if (found === undefined) throw new CorpusError(`${where}: "${name}" is missing`);
  return found;
}

function stringField(value: JsonValue, name: string, where: string): string {
  const found = field(value, name, where);
  if (typeof found !== "string") throw new CorpusError(`${where}: "${name}" must be a string`);
  return found;
}

/** Lowercase [a-z0-9] words joined by "-": what a row id allows. */
export function slug(text: string): string {
  const words = text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  return words.length > 0 ? words.join("-") : "x";
}

/** The id, or the id with -2, -3 … when the suite repeats a description. */
function unique(id: string, ids: Set<string>): string {
  let candidate = id;
  for (let n = 2; ids.has(candidate); n++) candidate = `${id}-${n}`;
  ids.add(candidate);
  return candidate;
}

function escape(name: string): string {
  return name.replaceAll("~", "~0").replaceAll("/", "~1");
}
