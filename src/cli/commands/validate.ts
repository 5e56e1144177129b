import { readFileSync } from "node:fs";
import { Option, type Command } from "commander";
import { compile, SchemaError } from "../../schema/compile.js";
import { EXIT, UsageError } from "../errors.js";

/** `validate SCHEMA_FILE INSTANCE_FILE`: the reference's verdict on one argument text. */
export function register(program: Command): void {
  program
    .command("validate")
    .description("validate an argument file against a schema file with the reference (exit 0 valid, 1 invalid, 2 schema refused)")
    .argument("<schema-file>", "the JSON Schema, in the supported subset")
    .argument("<instance-file>", "the argument text (use - for standard input)")
    .addOption(new Option("--format <format>", "output format").choices(["text", "json"]).default("text"))
    .action((schemaFile: string, instanceFile: string, options: { format: "text" | "json" }) => {
      const schemaText = readText(schemaFile, "the schema file");
      const instance = readText(instanceFile, "the argument file");
      let schema;
      try {
        schema = compile(schemaText);
      } catch (error) {
        if (!(error instanceof SchemaError)) throw error;
        if (options.format === "json") print({ valid: false, schemaError: error.message });
        else process.stderr.write(`tool-conformance: ${schemaFile}: schema refused: ${error.message}\n`);
        process.exitCode = EXIT.usage;
        return;
      }
      const errors = schema.validateJSON(instance);
      if (options.format === "json") {
        print({ valid: errors.length === 0, errors: errors.map((e) => ({ path: e.path, segments: e.segments, message: e.message })) });
      } else {
        process.stdout.write(errors.length === 0 ? "valid\n" : errors.map((e) => `${String(e)}\n`).join(""));
      }
      process.exitCode = errors.length === 0 ? EXIT.ok : EXIT.failed;
    });
}

function print(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + "\n");
}

/** A file's text (- is standard input); one that cannot be read is a usage error naming it (exit 2). */
function readText(path: string, what: string): string {
  try {
    return readFileSync(path === "-" ? 0 : path, "utf8");
  } catch (error) {
    const code = (error as { code?: string }).code;
    const why = code === "ENOENT" ? "no such file" : code === "EISDIR" ? "is a folder, not a file" : code === "EACCES" || code === "EPERM" ? "permission denied" : (code ?? String(error));
    throw new UsageError(`${path === "-" ? "standard input" : path}: cannot read ${what}: ${why}`);
  }
}
