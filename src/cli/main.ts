#!/usr/bin/env node
import { Command, CommanderError } from "commander";
import { EXIT, explain } from "./errors.js";
import { register as registerValidate } from "./commands/validate.js";

const program = new Command("tool-conformance")
  .description("Conformance corpus, reference oracle, pitfall mutants and scoring harness for LLM tool registries and their JSON Schema argument validators")
  .version("0.1.0")
  .showHelpAfterError("(run with --help for usage)")
  .exitOverride();

registerValidate(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // --help and --version end here with code 0; usage errors were already printed
    process.exitCode = error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  } else {
    const { line, code } = explain(error);
    if (line) process.stderr.write(`tool-conformance: ${line}\n`);
    process.exitCode = code;
  }
}
