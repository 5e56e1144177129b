import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { JsonSyntaxError, parseJSON } from "../json/parse.js";
import { compile, type Schema } from "../schema/compile.js";
import type { JsonValue } from "../json/value.js";
import type { Row, Section } from "./rows.js";

/** The package's own folders, the same from src/ (tests) and dist/ (the CLI). */
export const PACKAGE_ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const CORPUS_DIR = join(PACKAGE_ROOT, "conformance", "corpus");
export const ROW_SCHEMA_FILE = join(PACKAGE_ROOT, "conformance", "row.schema.json");

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

/** Reads every `*.json` file under `dir` (sorted), checks each row against the row schema, and returns the rows. */
export function loadCorpus(dir: string = CORPUS_DIR): Row[] {
  const files = listJsonFiles(dir);
  if (files.length === 0) throw new CorpusError(`no corpus files (*.json) under ${dir}`);
  const schemas = rowSchemas();
  const rows: Row[] = [];
  const seen = new Map<string, string>();
  for (const file of files) {
    const name = relative(dir, file);
    for (const row of readRows(file, name, schemas)) {
      const before = seen.get(row.id);
      if (before) throw new CorpusError(`${name}: row id ${JSON.stringify(row.id)} is also used in ${before}`);
      seen.set(row.id, name);
      rows.push({ ...row, source: name });
    }
  }
  return rows;
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
  const text = readFileSync(file, "utf8");
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
    const kind = item instanceof Map ? item.get("kind") : undefined;
    const schema = typeof kind === "string" ? schemas.get(kind) : undefined;
    if (!schema) throw new CorpusError(`${where}: "kind" must be one of ${[...schemas.keys()].join(", ")}`);
    const errors = schema.validate(item);
    if (errors.length > 0) throw new CorpusError(`${where}: ${errors.slice(0, 3).map(String).join("; ")}`);
    const row = plain[index]!;
    const prefix = row.id.split("/")[0]!;
    if (SECTION_OF_PREFIX[prefix] !== row.section) {
      throw new CorpusError(`${where}: an id starting "${prefix}/" belongs to ${SECTION_OF_PREFIX[prefix]}, not ${row.section}`);
    }
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
