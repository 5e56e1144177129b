import { InvalidArgumentError, type Command } from "commander";
import { smoke, type SmokeOptions } from "../../harness/smoke.js";
import { visible } from "../../report/reporters/text.js";
import { profileOption } from "../arguments.js";

// `smoke --subject "COMMAND"`: does an adapter speak the protocol? (harness/smoke.ts)

export function register(program: Command): void {
  program
    .command("smoke")
    .description("check in a second that an adapter speaks the protocol: every command its capabilities promise, sent once, each reply held to its schema (handshake, compile, validate; registry, register, names, definitions, call; concurrently; the lesson's get and validate by name), then requests nested 100000 deep that a naive implementation crashes on (exit 0 ok, 1 it answered wrongly: a broken reply (FAIL) or an answer the spec does not give (warn), 3 it could not start)")
    .requiredOption("--subject <command>", 'the adapter\'s command line, run through the shell (e.g. "python3 adapter.py")')
    .addOption(profileOption("the profile to ask for: ag02 (default) or lesson (pointer is its older name)"))
    .option("--timeout <ms>", "how long to wait for each reply", milliseconds, 2000)
    .option("--start-timeout <ms>", "how long to wait for the process to start and answer the handshake", milliseconds, 10_000)
    .action(async (options: SmokeOptions) => {
      // every line may carry the subject's own text (its stderr, its errors): shown, never obeyed by the terminal
      process.exitCode = await smoke(options, (line) => process.stdout.write(visible(line, { newlines: false }) + "\n"));
    });
}

function milliseconds(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError("expected a positive whole number of milliseconds");
  return n;
}
