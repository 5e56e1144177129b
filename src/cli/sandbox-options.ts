import { existsSync, statSync } from "node:fs";
import { createSandbox, parseSize, SandboxError, type Limits, type Sandbox, type SandboxMode } from "../subjects/sandbox/index.js";
import { makeDirectory } from "../report/directory.js";
import type { ReporterName } from "../report/reporters/names.js";
import { positiveInt, writeFailure } from "./arguments.js";
import { UsageError } from "./errors.js";

// score's sandbox flags: the caps, and the sandbox a --subject command runs in.

/** --max-processes and --cpu-seconds: caps that still mean something. */
export const MAX_PROCESSES = 65_536;
export const MAX_CPU_SECONDS = 86_400;

export interface SandboxFlags {
  subject?: string;
  sandbox: SandboxMode;
  submission?: string;
  writable?: boolean;
  sandboxBind: string[];
  runtime: string[];
  memory?: string;
  maxProcesses?: string;
  cpuSeconds?: string;
  maxFileSize?: string;
  out: string;
  key?: string;
  corpus?: string;
  jsts?: string;
  baseline?: string;
}

/** The caps given on the command line (undefined: the defaults); each needs --sandbox bwrap. */
export function sandboxLimits(flags: SandboxFlags): Partial<Limits> {
  const size = (value: string | undefined, flag: string) => {
    if (value === undefined) return undefined;
    const bytes = parseSize(value);
    if (bytes === undefined) throw new UsageError(`${flag}: ${JSON.stringify(value)} is not a size (e.g. 512M, 2G, 65536)`);
    return bytes;
  };
  const caps: [keyof Limits, string, number | undefined][] = [
    ["memoryBytes", "--memory", size(flags.memory, "--memory")],
    ["maxProcesses", "--max-processes", positiveInt(flags.maxProcesses, "--max-processes", MAX_PROCESSES)],
    ["cpuSeconds", "--cpu-seconds", positiveInt(flags.cpuSeconds, "--cpu-seconds", MAX_CPU_SECONDS)],
    ["fileBytes", "--max-file-size", size(flags.maxFileSize, "--max-file-size")],
  ];
  const limits: Partial<Limits> = Object.fromEntries(caps.map(([cap, , value]) => [cap, value]));
  if (flags.sandbox !== "bwrap") {
    const given = [
      ...caps.filter(([, , value]) => value !== undefined).map(([, flag]) => flag),
      ...(flags.writable ? ["--writable"] : []),
      ...(flags.sandboxBind.length > 0 ? ["--sandbox-bind"] : []),
      ...(flags.runtime.length > 0 ? ["--runtime"] : []),
    ];
    if (given.length > 0) throw new UsageError(`${given.join(", ")} ${given.length === 1 ? "applies" : "apply"} under --sandbox bwrap only (--sandbox none runs the subject as you, without caps)`);
  }
  return limits;
}

/**
 * The sandbox a --subject command runs in. Under bwrap, the report folder is made first so that
 * it can be hidden from the subject (and cannot be replaced by it), with the key, the private
 * corpus, the JSON-Schema-Test-Suite folder and the baseline.
 */
export function subjectSandbox(flags: SandboxFlags, limits: Partial<Limits>, reporters: ReporterName[], jsonToStdout: boolean): Sandbox | undefined {
  if (flags.sandbox !== "bwrap") {
    if (flags.submission !== undefined && (flags.subject === undefined || !existsSync(flags.submission) || !statSync(flags.submission).isDirectory())) {
      throw new UsageError(flags.subject === undefined ? "--submission is the folder a --subject command runs in: give --subject" : `--submission ${flags.submission}: no such folder`);
    }
    return undefined;
  }
  if (flags.subject === undefined) throw new UsageError("--sandbox bwrap runs a --subject command; reference, mutants and --module run inside this process and cannot be sandboxed");
  const files = reporters.filter((r) => r !== "terminal" && r !== "github-actions" && !(r === "json" && jsonToStdout));
  if (files.length > 0) {
    try {
      makeDirectory(flags.out);
    } catch (error) {
      throw new UsageError(`cannot write the reports under --out ${flags.out}: ${writeFailure(error)}`);
    }
  }
  const hide = [files.length > 0 ? flags.out : undefined, flags.key, flags.corpus, flags.jsts, flags.baseline].filter((path): path is string => path !== undefined);
  try {
    const sandbox = createSandbox({ mode: "bwrap", writable: flags.writable === true, binds: flags.sandboxBind, runtimes: flags.runtime, hide, limits, ...(flags.submission !== undefined ? { submission: flags.submission } : {}) });
    process.stderr.write(`${sandbox.summary}\n`);
    return sandbox;
  } catch (error) {
    if (error instanceof SandboxError) throw new UsageError(error.message);
    throw error;
  }
}
