import fc from "fast-check";
import type { Domain } from "./domain.js";

// A schema model: a schema inside the subset that knows which values it accepts, so that
// arguments can be aimed at it (valid ones, and near misses on each keyword's boundary).

export type Model =
  | { kind: "string"; typed: boolean; minLength?: number; maxLength?: number; pattern?: number }
  | { kind: "integer" | "number"; typed: boolean; minimum?: number; maximum?: number }
  | { kind: "boolean" | "null" }
  | { kind: "union"; types: ("string" | "integer" | "null" | "boolean")[] }
  | { kind: "enum"; values: Tree[] }
  | { kind: "const"; value: Tree }
  | { kind: "object"; props: Prop[]; additional?: false | Model }
  | { kind: "array"; items?: Model; minItems?: number; maxItems?: number }
  | { kind: "anyOf"; branches: Model[] };

export interface Prop {
  name: string;
  model: Model;
  required: boolean;
}

/** A JSON value as a tree, so numbers keep the text they are written with (3, 3.0, 3e0). */
export type Tree =
  | { t: "string"; v: string }
  | { t: "number"; v: number; lit?: string }
  | { t: "boolean"; v: boolean }
  | { t: "null" }
  | { t: "object"; entries: [string, Tree][] }
  | { t: "array"; items: Tree[] }
  /** Text written as is: numbers beyond float64, lone surrogates (the hardening domain). */
  | { t: "raw"; text: string };

/** A model's JSON Schema. */
export function schemaOf(model: Model, domain: Domain): Record<string, unknown> {
  switch (model.kind) {
    case "string":
      return {
        ...(model.typed ? { type: "string" } : {}),
        ...(model.minLength !== undefined ? { minLength: model.minLength } : {}),
        ...(model.maxLength !== undefined ? { maxLength: model.maxLength } : {}),
        ...(model.pattern !== undefined ? { pattern: domain.patterns[model.pattern]!.source } : {}),
      };
    case "integer":
    case "number":
      return {
        ...(model.typed ? { type: model.kind } : {}),
        ...(model.minimum !== undefined ? { minimum: model.minimum } : {}),
        ...(model.maximum !== undefined ? { maximum: model.maximum } : {}),
      };
    case "boolean":
    case "null":
      return { type: model.kind };
    case "union":
      return { type: model.types };
    case "enum":
      return { enum: model.values.map(toJson) };
    case "const":
      return { const: toJson(model.value) };
    case "object":
      return {
        type: "object",
        ...(model.props.length ? { properties: Object.fromEntries(model.props.map((p) => [p.name, schemaOf(p.model, domain)])) } : {}),
        ...(model.props.some((p) => p.required) ? { required: model.props.filter((p) => p.required).map((p) => p.name) } : {}),
        ...(model.additional === false ? { additionalProperties: false } : model.additional ? { additionalProperties: schemaOf(model.additional, domain) } : {}),
      };
    case "array":
      return {
        type: "array",
        ...(model.items ? { items: schemaOf(model.items, domain) } : {}),
        ...(model.minItems !== undefined ? { minItems: model.minItems } : {}),
        ...(model.maxItems !== undefined ? { maxItems: model.maxItems } : {}),
      };
    case "anyOf":
      return { anyOf: model.branches.map((b) => schemaOf(b, domain)) };
  }
}

/** Every keyword a schema uses, nested ones included, in first-seen order. */
export function keywordsOf(schema: unknown, into = new Set<string>()): string[] {
  if (typeof schema === "object" && schema !== null && !Array.isArray(schema)) {
    for (const [key, value] of Object.entries(schema)) {
      into.add(key);
      if (key === "properties" && typeof value === "object" && value !== null) for (const sub of Object.values(value)) keywordsOf(sub, into);
      else if (key === "items" || key === "additionalProperties") keywordsOf(value, into);
      else if (key === "anyOf" && Array.isArray(value)) for (const sub of value) keywordsOf(sub, into);
    }
  }
  return [...into];
}

/** Models of schemas inside the subset; objects and arrays nest at most `depth` levels. */
export function modelArb(domain: Domain, depth = 2): fc.Arbitrary<Model> {
  const count = fc.integer({ min: 0, max: 4 });
  const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 2 });
  const bound = fc.constantFrom(...domain.bounds);
  const leaves: fc.Arbitrary<Model>[] = [
    fc
      .record({ typed: fc.boolean(), minLength: optional(count), span: optional(fc.integer({ min: 0, max: 3 })), pattern: optional(fc.nat(domain.patterns.length - 1)) })
      .map(({ typed, minLength, span, pattern }) => ({
        kind: "string" as const,
        typed,
        ...(minLength !== undefined ? { minLength } : {}),
        ...(span !== undefined ? { maxLength: (minLength ?? 0) + span } : {}),
        ...(pattern !== undefined ? { pattern } : {}),
      })),
    fc
      .record({ kind: fc.constantFrom("integer" as const, "number" as const), typed: fc.boolean(), minimum: optional(bound), maximum: optional(bound) })
      .map(({ kind, typed, minimum, maximum }) => {
        // a model whose bounds cross accepts nothing: keep them in order
        const [lo, hi] = minimum !== undefined && maximum !== undefined && minimum > maximum ? [maximum, minimum] : [minimum, maximum];
        return { kind, typed, ...(lo !== undefined ? { minimum: lo } : {}), ...(hi !== undefined ? { maximum: hi } : {}) };
      }),
    fc.constantFrom({ kind: "boolean" as const }, { kind: "null" as const }),
    fc.uniqueArray(fc.constantFrom("string" as const, "integer" as const, "null" as const, "boolean" as const), { minLength: 2, maxLength: 3 }).map((types) => ({ kind: "union" as const, types })),
    fc.uniqueArray(listedTree(domain), { minLength: 1, maxLength: 3, selector: (t) => JSON.stringify(toJson(t)) }).map((values) => ({ kind: "enum" as const, values })),
    listedTree(domain).map((value) => ({ kind: "const" as const, value })),
  ];
  if (depth === 0) return fc.oneof(...leaves);
  const below = modelArb(domain, depth - 1);
  return fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    ...leaves,
    objectModel(domain, below),
    fc
      .record({ items: optional(below), minItems: optional(fc.integer({ min: 0, max: 2 })), span: optional(fc.integer({ min: 0, max: 2 })) })
      .map(({ items, minItems, span }) => ({
        kind: "array" as const,
        ...(items ? { items } : {}),
        ...(minItems !== undefined ? { minItems } : {}),
        ...(span !== undefined ? { maxItems: (minItems ?? 0) + span } : {}),
      })),
    fc.array(below, { minLength: 1, maxLength: 3 }).map((branches) => ({ kind: "anyOf" as const, branches })),
  );
}

/** An object model; tool parameters are one (the model always sends an object). */
export function objectModel(domain: Domain, below: fc.Arbitrary<Model>): fc.Arbitrary<Model> {
  return fc
    .record({
      props: fc.uniqueArray(fc.record({ name: fc.constantFrom(...domain.names), model: below, required: fc.boolean() }), { maxLength: 3, selector: (p) => p.name }),
      additional: fc.oneof({ weight: 2, arbitrary: fc.constant(undefined) }, { weight: 2, arbitrary: fc.constant(false as const) }, { weight: 1, arbitrary: below }),
    })
    .map(({ props, additional }) => ({ kind: "object" as const, props, ...(additional !== undefined ? { additional } : {}) }));
}

/**
 * A value an enum lists or a const names: mostly a scalar; now and then an array or an object of
 * scalars that JSON equality must not confuse (`[1]` and `[true]`, `[0]` and `[false]`, `["1"]`).
 */
function listedTree(domain: Domain): fc.Arbitrary<Tree> {
  const inner = fc.constantFrom<Tree>(
    { t: "number", v: 0 },
    { t: "number", v: 1 },
    { t: "number", v: 1.5 },
    { t: "boolean", v: true },
    { t: "boolean", v: false },
    { t: "null" },
    { t: "string", v: "1" },
    { t: "string", v: "" },
    { t: "string", v: "a" },
  );
  const array = fc.array(inner, { maxLength: 2 }).map((items): Tree => ({ t: "array", items }));
  // plain names: a `__proto__` key inside const is a JavaScript parser corner (hardening)
  const object = fc.uniqueArray(fc.tuple(fc.constantFrom("a", "b"), inner), { minLength: 1, maxLength: 2, selector: ([k]) => k }).map((entries): Tree => ({ t: "object", entries }));
  return fc.oneof({ weight: 8, arbitrary: scalarTree(domain) }, { weight: 2, arbitrary: array }, { weight: 1, arbitrary: object });
}

/** A string, number, boolean or null, written as JSON writes it. */
function scalarTree(domain: Domain): fc.Arbitrary<Tree> {
  return fc.oneof(
    stringTree(domain, 0, 3),
    numberTree(domain, fc.constantFrom(...domain.numbers)),
    fc.boolean().map((v) => ({ t: "boolean" as const, v })),
    fc.constant({ t: "null" as const }),
  );
}

export function stringTree(domain: Domain, min: number, max: number): fc.Arbitrary<Tree> {
  return fc.array(fc.constantFrom(...domain.chars), { minLength: min, maxLength: max }).map((chars) => ({ t: "string" as const, v: chars.join("") }));
}

/** A number, sometimes respelled exactly when whole (3.0, 3e0, 30e-1). */
export function numberTree(domain: Domain, values: fc.Arbitrary<number>): fc.Arbitrary<Tree> {
  return fc.tuple(values, fc.nat(domain.spellings.length)).map(([v, i]) => {
    // only plain whole numbers: String(1e21) is already an exponent form
    const spell = Number.isInteger(v) && !/e/i.test(String(v)) ? domain.spellings[i] : undefined;
    return spell ? { t: "number" as const, v, lit: spell(v) } : { t: "number" as const, v };
  });
}

/** The JSON value of a tree (for schemas: enum and const values). */
export function toJson(tree: Tree): unknown {
  switch (tree.t) {
    case "string":
    case "boolean":
      return tree.v;
    case "number":
      return tree.v;
    case "null":
      return null;
    case "object":
      return Object.fromEntries(tree.entries.map(([k, v]) => [k, toJson(v)]));
    case "array":
      return tree.items.map(toJson);
    case "raw":
      return JSON.parse(tree.text) as unknown;
  }
}

/** JSON text of a tree; numbers keep their literal. */
export function render(tree: Tree): string {
  switch (tree.t) {
    case "string":
      return JSON.stringify(tree.v);
    case "number":
      return tree.lit ?? String(tree.v);
    case "boolean":
      return String(tree.v);
    case "null":
      return "null";
    case "object":
      return `{${tree.entries.map(([k, v]) => `${JSON.stringify(k)}:${render(v)}`).join(",")}}`;
    case "array":
      return `[${tree.items.map(render).join(",")}]`;
    case "raw":
      return tree.text;
  }
}
