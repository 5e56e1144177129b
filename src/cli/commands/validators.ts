import { writeFileSync } from "node:fs";
import { Option, type Command } from "commander";
import { CORPUS_DIR, loadCorpus } from "../../corpus/load.js";
import { describeJsts, importJsts } from "../../corpus/jsts.js";
import type { Row } from "../../corpus/rows.js";
import { compareValidators, REQUEST_TIMEOUT_MS } from "../../libraries/compare-validators.js";
import { intInRange } from "../arguments.js";
import { jsonOf, markdownOf, textOf } from "../../libraries/validators-table.js";

type Format = "text" | "json" | "markdown";

interface Options {
  format: Format;
  jsts?: string;
  corpus?: string;
  out?: string;
  timeout?: string;
}

/** `validators`: the reference and six JSON Schema libraries over the validator rows, side by side. */
export function register(program: Command): void {
  program
    .command("validators")
    .description("run ajv, @cfworker/json-schema, @hyperjump/json-schema, z-schema, @exodus/schemasafe and jsonschema over the validate and compile rows, and compare them with the reference")
    .addOption(new Option("--format <format>", "output format").choices(["text", "json", "markdown"]).default("text"))
    .option("--jsts <dir>", "also run the JSON-Schema-Test-Suite tests found in DIR (tests/draft2020-12/*.json) whose schemas stay in the subset")
    .option("--corpus <dir>", "the corpus folder", undefined)
    .option("--out <file>", "write the output to FILE instead of standard output")
    .option("--timeout <ms>", `cut a row off (errored) after this many ms, 1 to 600000 (default ${REQUEST_TIMEOUT_MS}); the docs are generated with a generous one, so no row depends on the machine's load`)
    .action(async (options: Options) => {
      let rows: Row[] = loadCorpus(options.corpus ?? CORPUS_DIR);
      let jstsLine: string | undefined;
      if (options.jsts) {
        const imported = importJsts(options.jsts);
        rows = [...rows, ...imported.rows];
        jstsLine = describeJsts(imported);
        if (options.out) process.stderr.write(`${jstsLine}\n`);
      }
      const started = Date.now();
      const comparison = await compareValidators(rows, intInRange(options.timeout, "--timeout", 1, 600_000) ?? REQUEST_TIMEOUT_MS);
      const ms = Date.now() - started;
      const output =
        options.format === "json"
          ? JSON.stringify({ ...jsonOf(comparison), ...(jstsLine ? { jsts: jstsLine } : {}) }, null, 2) + "\n"
          : options.format === "markdown"
            ? markdownOf(comparison, jstsLine)
            : textOf(comparison, ms, jstsLine);
      if (options.out) writeFileSync(options.out, output);
      else process.stdout.write(output);
    });
}

