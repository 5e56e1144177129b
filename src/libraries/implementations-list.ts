import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { compile } from "../schema/compile.js";
import { PACKAGE_ROOT } from "../corpus/load.js";
import { UsageError } from "../errors.js";

// The list of real libraries and frameworks the implementations table scores
// (implementations/implementations.json), read and checked against its schema.

export const LIST_SCHEMA_FILE = join(PACKAGE_ROOT, "conformance", "implementations.schema.json");

export interface Implementation {
  name: string;
  title: string;
  language: string;
  package: string;
  version: string;
  source: string;
  folder: string;
  /** What it does that the contract forbids, in a line: the deviations checked by hand (its README). */
  costs?: string;
  build?: string;
  start: string;
  requires?: string;
  install?: string;
}

export interface ImplementationList {
  /** The list file's folder: every command runs there. */
  dir: string;
  implementations: Implementation[];
}

/** Reads a list file; a usage error naming the file and what is wrong when it is not one. */
export function readImplementationList(file: string): ImplementationList {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new UsageError(`--list ${file}: ${code === "ENOENT" ? "no such file (run from the project's folder, or give --list)" : error instanceof Error ? error.message : String(error)}`);
  }
  const schema = compile(readFileSync(LIST_SCHEMA_FILE, "utf8"));
  // malformed text is one error at $ ("invalid JSON: ...")
  const errors = schema.validateJSON(text);
  if (errors.length > 0) throw new UsageError(`--list ${file}: ${errors.slice(0, 3).map((e) => `${e.path}: ${e.message}`).join("; ")} (its format: conformance/implementations.schema.json)`);
  const implementations = (JSON.parse(text) as { implementations: Implementation[] }).implementations;
  const seen = new Set<string>();
  for (const implementation of implementations) {
    if (seen.has(implementation.name)) throw new UsageError(`--list ${file}: the name ${JSON.stringify(implementation.name)} is listed twice`);
    seen.add(implementation.name);
  }
  return { dir: resolve(dirname(file)), implementations };
}
