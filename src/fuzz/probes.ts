import fc from "fast-check";
import type { Behavior } from "../subjects/protocol.js";
import type { ProfileName, Tier, ToolRow } from "../corpus/rows.js";
import { aimedTree } from "./aim.js";
import type { Domain } from "./domain.js";
import { lessonModel } from "./lesson.js";
import { keywordsOf, modelArb, objectModel, render, schemaOf, type Tree } from "./model.js";

// A probe is a corpus row without its expectations: what to send. The reference fills in what
// should come back (oracle.ts); the subject's answers are compared with it as any row's are.

export interface ValidateProbe {
  kind: "validate";
  tier: Tier;
  schema: Record<string, unknown>;
  /** The argument as a tree (what the reducer simplifies) and as the text sent. */
  tree: Tree;
  /** Where the text is cut short to make it malformed; -1 for the whole text. */
  cut: number;
  instance: string;
  /** Only the verdict is fixed: anyOf's failure paths and malformed JSON's are left open by the spec. */
  verdictOnly: boolean;
}

export type ProbeStep =
  | { op: "register"; tool: ToolRow }
  | { op: "names" }
  | { op: "definitions" }
  | { op: "call"; call: { id: string; name: string; arguments: string }; args: CallArguments };

export interface RegistryProbe {
  kind: "registry";
  tier: Tier;
  timeoutMs?: number;
  steps: ProbeStep[];
}

export type Probe = ValidateProbe | RegistryProbe;

export interface ProbeOptions {
  domain: Domain;
  /** Which probes: validation only (a subject without the registry capability), or both. */
  kinds: readonly Probe["kind"][];
  /** The lesson profile gets validate probes in its own eight keywords (lesson.ts); default ag02's. */
  profile?: ProfileName;
}

export function probeArb(options: ProbeOptions): fc.Arbitrary<Probe> {
  // the lesson's registry API (records, get, validate by name) is not seed 000's: its cases are validations
  if (options.profile === "lesson") return lessonValidateProbe(options.domain);
  const arbs: fc.WeightedArbitrary<Probe>[] = [];
  if (options.kinds.includes("validate")) arbs.push({ weight: 3, arbitrary: validateProbe(options.domain) });
  if (options.kinds.includes("registry")) arbs.push({ weight: 1, arbitrary: registryProbe(options.domain) });
  return fc.oneof(...arbs);
}

const tierOf = (domain: Domain): Tier => (domain.name === "core" ? "core" : "hardening");

export function validateProbe(domain: Domain): fc.Arbitrary<ValidateProbe> {
  return modelArb(domain).chain((model) =>
    // now and then a text cut short: malformed JSON
    fc.tuple(aimedTree(model, domain), fc.oneof({ weight: 12, arbitrary: fc.constant(-1) }, { weight: 1, arbitrary: fc.nat() })).map(([tree, cut]) =>
      validateProbeOf(schemaOf(model, domain), tree, cut, tierOf(domain)),
    ),
  );
}

/** A validate probe for the lesson (lesson.ts): a narrowed schema, an argument aimed at it, never cut short. */
export function lessonValidateProbe(domain: Domain): fc.Arbitrary<ValidateProbe> {
  return modelArb(domain)
    .map(lessonModel)
    .chain((model) => aimedTree(model, domain).map((tree) => validateProbeOf(schemaOf(model, domain), tree, -1, tierOf(domain))));
}

/** A validate probe for a schema and an argument tree, cut short at `cut` unless it is -1. */
export function validateProbeOf(schema: Record<string, unknown>, tree: Tree, cut: number, tier: Tier): ValidateProbe {
  const text = render(tree);
  const malformed = cut >= 0 && text.length > 1;
  return {
    kind: "validate",
    tier,
    schema,
    tree,
    cut: malformed ? cut : -1,
    instance: malformed ? text.slice(0, 1 + (cut % (text.length - 1))) : text,
    verdictOnly: malformed || keywordsOf(schema).includes("anyOf"),
  };
}

const VALID_NAMES = ["get_weather", "search", "lookup", "a", "Z-9", "x".repeat(64), "notes.read"];
const INVALID_NAMES = ["", "bad name", "x".repeat(65), "é", "a/b"];
const UNKNOWN_NAME = "delete_everything";
const ODD_ARGUMENTS = ["", "{", "null", "[]", "{}", '{"a":1}', '"x"', "{} {}"];

interface ToolDraft {
  tool: ToolRow;
  /** Arguments it is called with: a tree aimed at its parameters, or an odd text. */
  calls: CallArguments[];
}

/** A call's arguments: a tree (the reducer can simplify it) or a text written as is. */
export type CallArguments = { tree: Tree } | { text: string };

export function argumentsText(args: CallArguments): string {
  return "tree" in args ? render(args.tree) : args.text;
}

function behaviorArb(domain: Domain): fc.Arbitrary<Behavior> {
  const texts = fc.constantFrom("ok", "sunny, 21°C", "", "💩");
  const arbs: fc.WeightedArbitrary<Behavior>[] = [
    { weight: 5, arbitrary: fc.constant({ kind: "echo" as const }) },
    { weight: 1, arbitrary: texts.map((text) => ({ kind: "reply" as const, text })) },
    { weight: 1, arbitrary: texts.map((text) => ({ kind: "fail" as const, text })) },
    { weight: 1, arbitrary: fc.constantFrom<unknown>("boom", 42, null).map((value) => ({ kind: "panic" as const, value })) },
    { weight: 1, arbitrary: texts.map((text) => ({ kind: "sleep" as const, ms: 1, text })) },
  ];
  // the spec fixes no timeout: a tool that never returns is for the hardening tier
  if (domain.name === "hardening") arbs.push({ weight: 1, arbitrary: fc.constant({ kind: "hang" as const }) });
  return fc.oneof(...arbs);
}

/** A tool and the calls made to it; its arguments are aimed at its own parameters. */
function toolArb(domain: Domain): fc.Arbitrary<ToolDraft> {
  const name = fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...VALID_NAMES) }, { weight: 1, arbitrary: fc.constantFrom(...INVALID_NAMES) });
  const description = fc.constantFrom("Looks things up.", "", "Gets the weather for a city.");
  const odd = fc.constantFrom(...ODD_ARGUMENTS).map((text): CallArguments => ({ text }));
  const withModel = objectModel(domain, modelArb(domain, 1)).chain((model) =>
    fc.record({
      text: fc.constant<string | null>(JSON.stringify(schemaOf(model, domain))),
      calls: fc.array(fc.oneof({ weight: 5, arbitrary: aimedTree(model, domain).map((tree): CallArguments => ({ tree })) }, { weight: 1, arbitrary: odd }), { maxLength: 2 }),
    }),
  );
  const without = fc.record({
    text: fc.oneof(fc.constant(null), fc.constantFrom('{"type":"string"}', '{"type":"object","format":"email"}', "[]", '{"type":"object","properties":{"a":{"type":"uuid"}}}')),
    calls: fc.array(fc.oneof(fc.constant<CallArguments>({ text: "{}" }), odd), { maxLength: 2 }),
  });
  return fc
    .record({ name, description, params: fc.oneof({ weight: 5, arbitrary: withModel }, { weight: 2, arbitrary: without }), behavior: behaviorArb(domain) })
    .map(({ name, description, params, behavior }) => ({
      tool: { name, description, ...(params.text === null ? {} : { parametersText: params.text }), behavior },
      calls: params.calls,
    }));
}

export function registryProbe(domain: Domain): fc.Arbitrary<RegistryProbe> {
  return fc
    .record({
      drafts: fc.array(toolArb(domain), { minLength: 1, maxLength: 3 }),
      definitions: fc.boolean(),
      unknown: fc.boolean(),
      // the spec does not say in which order Names() lists the tools
      names: domain.name === "hardening" ? fc.boolean() : fc.constant(false),
    })
    .map(({ drafts, definitions, unknown, names }) => {
      let n = 0;
      const call = (name: string, args: CallArguments): ProbeStep => ({ op: "call", call: { id: `call_${++n}`, name, arguments: argumentsText(args) }, args });
      const steps: ProbeStep[] = [
        ...drafts.map((d) => ({ op: "register" as const, tool: d.tool })),
        ...drafts.flatMap((d) => d.calls.map((args) => call(d.tool.name, args))),
        ...(unknown ? [call(UNKNOWN_NAME, { text: "{}" })] : []),
        ...(definitions ? [{ op: "definitions" as const }] : []),
        ...(names ? [{ op: "names" as const }] : []),
      ];
      const hangs = drafts.some((d) => d.tool.behavior.kind === "hang");
      return { kind: "registry" as const, tier: tierOf(domain), ...(hangs ? { timeoutMs: 50 } : {}), steps };
    });
}
