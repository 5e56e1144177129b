import { createHash } from "node:crypto";
import * as reference from "../index.js";
import { createHandler } from "../subjects/handler.js";
import type { Request } from "../subjects/protocol.js";
import { rowForProfile, type CompileRow, type ProfileName, type RegistryRow, type Row, type Section, type SimpleStep, type ValidateRow } from "../corpus/rows.js";
import { messages } from "../schema/messages.js";
import { keywordsOf } from "./model.js";
import type { Probe, RegistryProbe, ValidateProbe } from "./probes.js";

// The oracle: a probe becomes a corpus row whose expectations are the reference's answers.
// A row made here is compared with a subject exactly as a corpus row is (run-row.ts).

/** What a generated row's `why` says until someone writes which sentence of the spec it follows from. */
export const WHY_TO_WRITE = "TO WRITE: the sentence of the spec this row follows from (docs/semantics.md)";

export interface RowNaming {
  id: string;
  rule: string;
}

/** The row for a probe, expectations from the reference. */
export async function rowOf(probe: Probe, profile: ProfileName, naming?: RowNaming): Promise<Row> {
  const name = naming ?? defaultNaming(probe);
  const row = probe.kind === "validate" ? validateRow(probe, name, profile) : await registryRow(probe, profile, name);
  // a lesson row (profiles: lesson) keeps its tier; seed 000's generated rows are catalog in the lesson profile
  return rowForProfile(naming ? row : named(row), profile);
}

/** The prefix of an id in each section (the corpus loader checks it). */
const ID_PREFIX: Partial<Record<Section, string>> = {
  TestValidateTable: "validate",
  TestCompileRejectsUnsupported: "compile",
  TestRegisterRules: "register",
  TestDefinitionsSorted: "definitions",
  TestCallNeverPanics: "call",
};

/** A default-named row's id under its section's prefix; a compile row's rule without the argument it never reads. */
function named<R extends Row>(row: R): R {
  const prefix = ID_PREFIX[row.section];
  const id = prefix ? row.id.replace(/^[a-z]+\//, `${prefix}/`) : row.id;
  const rule = row.kind === "compile" ? `keywords ${keywordsOf(row.schema).join(", ") || "(none)"}` : row.rule;
  return { ...row, id, rule };
}

/** A stable id from the probe's content: the same case always gets the same id. */
export function defaultNaming(probe: Probe): RowNaming {
  const hash = createHash("sha256").update(JSON.stringify(probe)).digest("hex").slice(0, 10);
  if (probe.kind === "validate") {
    return { id: `validate/found-${hash}`, rule: `keywords ${keywordsOf(probe.schema).join(", ") || "(none)"} on ${excerpt(probe.instance)}` };
  }
  const ops = probe.steps.map((s) => (s.op === "register" ? `register ${JSON.stringify(s.tool.name)}` : s.op === "call" ? `call ${JSON.stringify(s.call.name)}` : s.op));
  return { id: `call/found-${hash}`, rule: ops.join(", ") };
}

function validateRow(probe: ValidateProbe, naming: RowNaming, profile: ProfileName): ValidateRow | CompileRow {
  const lesson = profile === "lesson";
  const schemaText = JSON.stringify(probe.schema);
  // error wording is the project's choice in every domain: compared only with --tier catalog
  const base = { id: naming.id, rule: naming.rule, tier: probe.tier, ...(probe.tier === "hardening" ? { messageTier: "catalog" as const } : {}), pitfalls: [], why: WHY_TO_WRITE };
  let schema: reference.Schema;
  try {
    schema = reference.compile(schemaText);
  } catch (error) {
    if (!(error instanceof reference.SchemaError)) throw error;
    return { ...base, kind: "compile", section: "TestCompileRejectsUnsupported", schema: probe.schema, expect: { ok: false } };
  }
  const found = schema.validateJSON(probe.instance);
  // the lesson: each type error carries expected_type; where a missing property's error sits is not the lesson's (verdict only)
  const errors = found.map((e) => ({ path: [...e.segments], message: e.message, ...(lesson && e.expectedType !== undefined ? { expectedType: e.expectedType } : {}) }));
  const verdictOnly = probe.verdictOnly || (lesson && found.some((e) => e.message.startsWith(MISSING)));
  return {
    ...base,
    kind: "validate",
    section: "TestValidateTable",
    ...(lesson ? { profiles: ["lesson" as const] } : {}),
    schema: probe.schema,
    instance: probe.instance,
    ...(verdictOnly ? { verdictOnly: true } : {}),
    expect: { errors },
  };
}

async function registryRow(probe: RegistryProbe, profile: ProfileName, naming: RowNaming): Promise<RegistryRow> {
  const handle = createHandler(reference, { name: "reference" });
  let seq = 0;
  const send = (body: Record<string, unknown>) => handle({ ...body, seq: ++seq } as Request);
  await send({ cmd: "start", version: 1, profile });
  await send({ cmd: "registry", ...(probe.timeoutMs !== undefined ? { timeoutMs: probe.timeoutMs } : {}) });
  const registered: string[] = [];
  const steps: SimpleStep[] = [];
  for (const step of probe.steps) {
    switch (step.op) {
      case "register": {
        const { tool } = step;
        const reply = await send({ cmd: "register", tool: { name: tool.name, description: tool.description, parameters: tool.parametersText ?? null, behavior: tool.behavior } });
        if (reply.ok === true) registered.push(tool.name);
        steps.push({ op: "register", tool, expect: reply.ok === true ? { ok: true } : { ok: false } });
        break;
      }
      case "names": {
        const reply = await send({ cmd: "names" });
        steps.push({ op: "names", expect: reply.names as string[] });
        break;
      }
      case "definitions": {
        const reply = await send({ cmd: "definitions" });
        steps.push({ op: "definitions", expect: JSON.parse(JSON.stringify(reply.definitions)) as Extract<SimpleStep, { op: "definitions" }>["expect"] });
        break;
      }
      case "call": {
        const reply = await send({ cmd: "call", call: step.call });
        const result = reply.result as { isError: boolean };
        const content = (reply.message as { content: string }).content;
        const runs = (reply.runs as Record<string, string[]>)[step.call.name] ?? [];
        // the spec fixes a successful call's content (the tool's answer) and that an unknown name lists the names that exist
        const unknown = !registered.includes(step.call.name);
        steps.push({
          op: "call",
          call: step.call,
          expect: {
            isError: result.isError,
            runs,
            ...(result.isError ? {} : { content }),
            ...(unknown && registered.length > 0 ? { contentIncludes: [...registered] } : {}),
          },
        });
        break;
      }
    }
  }
  return {
    id: naming.id,
    section: sectionOf(probe),
    rule: naming.rule,
    tier: probe.tier,
    ...(probe.tier === "core" ? { messageTier: "core" as const } : {}),
    pitfalls: [],
    why: WHY_TO_WRITE,
    kind: "registry",
    ...(probe.timeoutMs !== undefined ? { registry: { timeoutMs: probe.timeoutMs } } : {}),
    steps,
  };
}

/** How the reference's message for a missing required property begins. */
const MISSING = messages.required("").slice(0, -2);

function sectionOf(probe: RegistryProbe): Section {
  if (probe.steps.some((s) => s.op === "call")) return "TestCallNeverPanics";
  if (probe.steps.some((s) => s.op === "definitions")) return "TestDefinitionsSorted";
  return "TestRegisterRules";
}

function excerpt(text: string, max = 60): string {
  return JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);
}
