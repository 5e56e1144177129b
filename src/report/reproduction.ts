import { instanceTextOf, parametersTextOf, schemaTextOf, type Row, type SimpleStep, type Step } from "../corpus/rows.js";
import { clipText, shellQuote } from "./reporters/text.js";
import type { Reproduction } from "./report.js";

/** The longest schema or argument text a report keeps (the rerun command reproduces any row whole). */
export const REPRO_MAX_CHARS = 64 * 1024;

/** A command to rerun a row: a prefix that `--filter ID` completes, or a row's whole command (undefined: none a student can run). */
export type Rerun = string | ((row: Row) => string | undefined);

/** A row's reproduction: its why, what it sends, and the command that reruns it. */
export function reproductionOf(row: Row, rerun?: Rerun): Reproduction {
  const keep = (text: string) => clipText(text, REPRO_MAX_CHARS);
  const out: Reproduction = { why: row.why };
  if (row.kind === "validate") {
    out.schema = keep(schemaTextOf(row));
    out.instance = keep(instanceTextOf(row.instance));
  } else if (row.kind === "compile") {
    out.schema = keep(schemaTextOf(row));
  } else {
    const timeout = row.registry?.timeoutMs;
    out.steps = [`a new registry${timeout !== undefined ? ` (tool timeout ${timeout} ms)` : ""}`, ...row.steps.flatMap((step, i) => stepLines(step, `step ${i + 1}`))].map(keep);
  }
  const command = typeof rerun === "function" ? rerun(row) : rerun !== undefined ? `${rerun} --filter ${shellQuote(row.id)}` : undefined;
  if (command !== undefined) out.rerun = command;
  return out;
}

/** A registry step as the request it makes and what it expects: `step 2: call {…} → expect …`. */
function stepLines(step: Step, label: string): string[] {
  if (step.op === "concurrently") return [`${label}: at once, on the same registry:`, ...step.steps.flatMap((inner, i) => stepLines(inner, `  ${label}.${i + 1}`))];
  return [`${label}: ${stepText(step)}`];
}

function stepText(step: SimpleStep): string {
  switch (step.op) {
    case "register": {
      const tool = step.tool;
      const parameters = parametersTextOf(tool);
      const record = { ...(tool.idempotent !== undefined ? { idempotent: tool.idempotent } : {}), ...(tool.timeoutMs !== undefined ? { timeoutMs: tool.timeoutMs } : {}), ...(tool.handler ? { handler: tool.handler } : {}) };
      const spec = { name: tool.name, description: tool.description, parameters, behavior: tool.behavior, ...record };
      const expect = step.expect.ok ? "accepted" : `refused${step.expect.error !== undefined ? ` with ${JSON.stringify(step.expect.error)}` : ""}`;
      return `register${step.override ? " (override)" : ""} ${JSON.stringify(spec)} → expect ${expect}`;
    }
    case "names":
      return `names → expect ${JSON.stringify(step.expect)}`;
    case "definitions":
      return `definitions → expect ${JSON.stringify(step.expect)}`;
    case "call": {
      const e = step.expect;
      const parts = [e.isError ? "an error result" : "a result", `runs ${JSON.stringify(e.runs)}`];
      if (e.content !== undefined) parts.push(`content ${JSON.stringify(e.content)}`);
      if (e.contentIncludes?.length) parts.push(`content including ${e.contentIncludes.map((t) => JSON.stringify(t)).join(", ")}`);
      if (e.contentExcludes?.length) parts.push(`content without ${e.contentExcludes.map((t) => JSON.stringify(t)).join(", ")}`);
      return `call ${JSON.stringify(step.call)} → expect ${parts.join(", ")}`;
    }
    case "get":
      return `get ${JSON.stringify(step.name)} → expect ${step.expect.found ? `the record ${JSON.stringify(step.expect.record)}` : "it raises (not found)"}`;
    case "validate": {
      const e = step.expect;
      return `validate ${JSON.stringify(step.name)} with ${JSON.stringify(step.instance)} → expect ${"refused" in e ? "it raises (no such tool)" : `errors ${JSON.stringify(e.errors.map((x) => ({ path: x.path, ...(x.expectedType ? { expectedType: x.expectedType } : {}) })))}`}`;
    }
  }
}
