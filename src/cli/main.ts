#!/usr/bin/env node
import { Command, CommanderError } from "commander";
import { withoutEmptyDefaults } from "./arguments.js";
import { EXIT, explain } from "./errors.js";
import { forLog } from "../report/reporters/text.js";
import { register as registerValidate } from "./commands/validate.js";
import { register as registerMutants } from "./commands/mutants.js";
import { register as registerValidators } from "./commands/validators.js";
import { register as registerAdapter } from "./commands/adapter.js";
import { register as registerMcpServe } from "./commands/mcp-serve.js";
import { register as registerSmoke } from "./commands/smoke.js";
import { register as registerScore } from "./commands/score.js";
import { register as registerMerge } from "./commands/merge.js";
import { register as registerReport } from "./commands/report.js";
import { register as registerGrade } from "./commands/grade.js";
import { register as registerFuzz } from "./commands/fuzz.js";
import { register as registerImplementations } from "./commands/implementations.js";
import { register as registerMcpServers } from "./commands/mcp-servers.js";
import { register as registerMcpFrameworks } from "./commands/mcp-frameworks.js";

// a reader that stops early (`| head`) closes the pipe: the run goes on to its own end and exit code, quietly
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    stream.write = () => true;
  });
}

const program = new Command("tool-conformance")
  .description("Conformance corpus, reference oracle, pitfall mutants and scoring harness for LLM tool registries and their JSON Schema argument validators")
  .version("0.1.0")
  .showHelpAfterError("(run with --help for usage)")
  // commander's own errors quote the arguments given: shown escaped like every other line (subcommands inherit it)
  .configureOutput({ outputError: (text, write) => write(forLog(text)) })
  .exitOverride();

// every command inherits it: no "(default: [])" after a repeatable option
withoutEmptyDefaults(program);

registerValidate(program);
registerValidators(program);
registerMutants(program);
registerAdapter(program);
registerMcpServe(program);
registerSmoke(program);
registerScore(program);
registerMerge(program);
registerReport(program);
registerGrade(program); // after score: it passes score's options through
registerFuzz(program);
registerImplementations(program);
registerMcpServers(program);
registerMcpFrameworks(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // --help and --version end here with code 0; usage errors were already printed
    process.exitCode = error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  } else {
    const { line, code } = explain(error);
    // a message may quote a subject's or a server's words (a tool's name): no control or bidi character reaches the terminal raw
    if (line) process.stderr.write(`tool-conformance: ${forLog(line)}\n`);
    process.exitCode = code;
  }
}
