import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { JsonSyntaxError, parseJSON } from "../json/parse.js";
import { compile, type Schema } from "../schema/compile.js";
import { isObject, member, type JsonValue } from "../json/value.js";
import { profileNamed, type Part, type Row, type Section } from "./rows.js";

/** The package's own folders, the same from src/ (tests) and dist/ (the CLI). */
export const PACKAGE_ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const CORPUS_DIR = join(PACKAGE_ROOT, "conformance", "corpus");
export const ROW_SCHEMA_FILE = join(PACKAGE_ROOT, "conformance", "row.schema.json");

/**
 * A compiled file of this package that must be JavaScript (a worker thread cannot load TypeScript):
 * `file` in the folder of the module at `moduleUrl`, under dist/. A module runs from src/ (tests) or
 * dist/ (the CLI, the packed package); its folder below either is the same, so one rule finds it.
 */
export function builtBeside(moduleUrl: string, file: string): string {
  const [, ...below] = relative(PACKAGE_ROOT, dirname(fileURLToPath(moduleUrl))).split(sep);
  return join(PACKAGE_ROOT, "dist", ...below, file);
}

/** A corpus that cannot be used: the message names the file, the row and what is wrong. */
export class CorpusError extends Error {
  override name = "CorpusError";
}

const SECTION_OF_PREFIX: Record<string, Section> = {
  example: "TestHandWorkedExample",
  validate: "TestValidateTable",
  compile: "TestCompileRejectsUnsupported",
  register: "TestRegisterRules",
  definitions: "TestDefinitionsSorted",
  call: "TestCallNeverPanics",
};

export interface LoadOptions {
  /** The part of the score these rows count in (default "corpus": the shipped corpus). */
  part?: Part;
  /** Rows already loaded (the shipped corpus): an id used there is refused, naming where. */
  taken?: readonly Row[];
  /** How files are named in messages and in each row's `source` (default: relative to `dir`). */
  prefix?: string;
}

/** Reads every `*.json` file under `dir` (sorted), checks each row against the row schema, and returns the rows. */
export function loadCorpus(dir: string = CORPUS_DIR, options: LoadOptions = {}): Row[] {
  const files = listJsonFiles(dir);
  if (files.length === 0) throw new CorpusError(`no corpus files (*.json) under ${dir}`);
  const schemas = rowSchemas();
  const rows: Row[] = [];
  const seen = new Map<string, string>();
  const taken = new Map((options.taken ?? []).map((row) => [row.id, row.source ?? "the corpus"]));
  const part = options.part ?? "corpus";
  for (const file of files) {
    const name = options.prefix !== undefined ? join(options.prefix, relative(dir, file)) : relative(dir, file);
    for (const row of readRows(file, name, schemas)) {
      const before = seen.get(row.id);
      if (before) throw new CorpusError(`${name}: row id ${JSON.stringify(row.id)} is also used in ${before}`);
      // a private row under a corpus id would be scored twice, or shadow the corpus row in a report
      const shipped = taken.get(row.id);
      if (shipped !== undefined) throw new CorpusError(`${name}: row id ${JSON.stringify(row.id)} is already a corpus row (${shipped}); give ${part} rows ids of their own`);
      seen.set(row.id, name);
      // older profile names (pointer) stand for today's (lesson)
      const profiles = row.profiles?.map((profile) => profileNamed(profile) ?? profile);
      rows.push({ ...row, ...(profiles ? { profiles } : {}), source: name, ...(part !== "corpus" ? { part } : {}) });
    }
  }
  return rows;
}

/**
 * A grader's own rows (score --corpus DIR): the same format, every file checked by the row schema,
 * scored as the "private" part. Their ids must not be ids of `corpus`.
 */
export function loadPrivateCorpus(dir: string, corpus: readonly Row[]): Row[] {
  return loadCorpus(dir, { part: "private", taken: corpus, prefix: dir });
}

function listJsonFiles(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir).sort();
  } catch {
    throw new CorpusError(`cannot read the corpus folder ${dir}`);
  }
  return entries.flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return listJsonFiles(path);
    return entry.endsWith(".json") ? [path] : [];
  });
}

function readRows(file: string, name: string, schemas: Map<string, Schema>): Row[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new CorpusError(`${name}: cannot read it (${(error as { code?: string }).code ?? String(error)})`);
  }
  let value: JsonValue;
  try {
    value = parseJSON(text);
  } catch (error) {
    if (error instanceof JsonSyntaxError) throw new CorpusError(`${name}: ${error.message}`);
    throw error;
  }
  if (!Array.isArray(value)) throw new CorpusError(`${name}: a corpus file must be a JSON array of rows`);
  const plain = JSON.parse(text) as Row[];
  value.forEach((item, index) => {
    const where = `${name}: row ${index + 1}${typeof plain[index]?.id === "string" ? ` (${plain[index]!.id})` : ""}`;
    const kind = isObject(item) ? member(item, "kind") : undefined;
    const schema = typeof kind === "string" ? schemas.get(kind) : undefined;
    if (!schema) throw new CorpusError(`${where}: "kind" must be one of ${[...schemas.keys()].join(", ")}`);
    const errors = schema.validate(item);
    if (errors.length > 0) throw new CorpusError(`${where}: ${errors.slice(0, 3).map(String).join("; ")}`);
    const row = plain[index]!;
    // the lesson profile's own rows: lesson/validate/…, lesson/register/…
    const lesson = row.id.startsWith("lesson/");
    const prefix = row.id.split("/")[lesson ? 1 : 0]!;
    if (SECTION_OF_PREFIX[prefix] !== row.section) {
      const where2 = lesson ? `lesson/${prefix}/` : `${prefix}/`;
      throw new CorpusError(`${where}: an id starting "${where2}" belongs to ${SECTION_OF_PREFIX[prefix] ?? "no section"}, not ${row.section}`);
    }
    if (lesson && !row.profiles?.some((profile) => profileNamed(profile) === "lesson")) throw new CorpusError(`${where}: a lesson/ row applies to the lesson profile: give it "profiles": ["lesson"]`);
    if (row.kind !== "registry" && (row.schema === undefined) === (row.schemaText === undefined)) {
      throw new CorpusError(`${where}: give exactly one of "schema" and "schemaText"`);
    }
  });
  return plain;
}

/** The row schema's three alternatives, by the kind each one fixes. */
function rowSchemas(): Map<string, Schema> {
  const document = JSON.parse(readFileSync(ROW_SCHEMA_FILE, "utf8")) as { anyOf: { properties: { kind: { const: string } } }[] };
  return new Map(document.anyOf.map((alternative) => [alternative.properties.kind.const, compile(JSON.stringify(alternative))]));
}
