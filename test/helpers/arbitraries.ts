import fc from "fast-check";
import type { Segment } from "../../src/schema/path.js";
import { render, type Tree } from "../../src/fuzz/model.js";

export { render, type Tree };

// Generators for the property tests: a schema model inside the subset, a value
// that satisfies it (as a tree, so it can be rendered with any number spelling),
// and a targeted violation at one path.

export type Model =
  | { kind: "string"; min: number; max: number }
  | { kind: "integer"; min: number; max: number }
  | { kind: "number"; min: number; max: number }
  | { kind: "boolean" }
  | { kind: "null" }
  | { kind: "enum"; values: string[] }
  | { kind: "object"; props: { name: string; model: Model; required: boolean }[] }
  | { kind: "array"; item: Model; min: number; max: number };

const propertyName = fc.oneof(
  fc.constantFrom("city", "days", "unit", "__proto__", "constructor", "toString", "a b", "é", "💩", ""),
  fc.string({ minLength: 1, maxLength: 6 }),
);

const bounds = (lo: number, hi: number) =>
  fc.tuple(fc.integer({ min: lo, max: hi }), fc.integer({ min: 0, max: 5 })).map(([min, span]) => ({ min, max: min + span }));

export const modelArb: fc.Arbitrary<Model> = fc.letrec<{ model: Model }>((tie) => ({
  model: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    bounds(0, 4).map((b) => ({ kind: "string" as const, ...b })),
    bounds(-50, 50).map((b) => ({ kind: "integer" as const, ...b })),
    bounds(-50, 50).map((b) => ({ kind: "number" as const, ...b })),
    fc.constant({ kind: "boolean" as const }),
    fc.constant({ kind: "null" as const }),
    fc.uniqueArray(fc.string({ maxLength: 3 }), { minLength: 1, maxLength: 4 }).map((values) => ({ kind: "enum" as const, values })),
    fc
      .uniqueArray(fc.record({ name: propertyName, model: tie("model"), required: fc.boolean() }), { maxLength: 4, selector: (p) => p.name })
      .map((props) => ({ kind: "object" as const, props })),
    fc.tuple(tie("model"), bounds(0, 2)).map(([item, b]) => ({ kind: "array" as const, item, ...b })),
  ),
})).model;

/** The JSON Schema of a model. Every node declares its type, so a wrong type is one error. */
export function schemaOf(model: Model): Record<string, unknown> {
  switch (model.kind) {
    case "string":
      return { type: "string", minLength: model.min, maxLength: model.max };
    case "integer":
    case "number":
      return { type: model.kind, minimum: model.min, maximum: model.max };
    case "boolean":
    case "null":
      return { type: model.kind };
    case "enum":
      return { type: "string", enum: model.values };
    case "object":
      return {
        type: "object",
        properties: Object.fromEntries(model.props.map((p) => [p.name, schemaOf(p.model)])),
        required: model.props.filter((p) => p.required).map((p) => p.name),
        additionalProperties: false,
      };
    case "array":
      return { type: "array", items: schemaOf(model.item), minItems: model.min, maxItems: model.max };
  }
}

const character = fc.constantFrom("a", "z", "é", "💩", "\u0301", " ", '"', "\\", "\n");

/** A value that satisfies the model. */
export function validTree(model: Model): fc.Arbitrary<Tree> {
  switch (model.kind) {
    case "string":
      return fc.array(character, { minLength: model.min, maxLength: model.max }).map((chars) => ({ t: "string" as const, v: chars.join("") }));
    case "integer":
      return fc.integer({ min: model.min, max: model.max }).map((v) => ({ t: "number" as const, v }));
    case "number":
      return fc
        .integer({ min: model.min * 4, max: model.max * 4 })
        .map((quarter) => ({ t: "number" as const, v: quarter / 4 }));
    case "boolean":
      return fc.boolean().map((v) => ({ t: "boolean" as const, v }));
    case "null":
      return fc.constant({ t: "null" as const });
    case "enum":
      return fc.constantFrom(...model.values).map((v) => ({ t: "string" as const, v }));
    case "object":
      return fc
        .tuple(...model.props.map((p) => fc.tuple(p.required ? fc.constant(true) : fc.boolean(), validTree(p.model))))
        .map((parts) => ({
          t: "object" as const,
          entries: parts.flatMap(([present, tree], i) => (present ? [[model.props[i]!.name, tree] as [string, Tree]] : [])),
        }));
    case "array":
      return fc.array(validTree(model.item), { minLength: model.min, maxLength: model.max }).map((items) => ({ t: "array" as const, items }));
  }
}

/** Every place in a valid tree, with the model it must satisfy. */
export function places(tree: Tree, model: Model, at: Segment[] = []): { at: Segment[]; model: Model }[] {
  const here = [{ at, model }];
  if (tree.t === "object" && model.kind === "object") {
    return here.concat(
      tree.entries.flatMap(([name, child]) => places(child, model.props.find((p) => p.name === name)!.model, [...at, name])),
    );
  }
  if (tree.t === "array" && model.kind === "array") {
    return here.concat(tree.items.flatMap((child, i) => places(child, model.item, [...at, i])));
  }
  return here;
}

/** A value of another JSON type than the model wants, and the JSON type word the validator reports. */
export function wrongTyped(model: Model): { tree: Tree; got: string } {
  switch (model.kind) {
    case "string":
    case "enum":
      return { tree: { t: "boolean", v: true }, got: "boolean" };
    case "integer":
    case "number":
      return { tree: { t: "string", v: "3" }, got: "string" };
    case "boolean":
    case "null":
      return { tree: { t: "number", v: 0 }, got: "number" };
    case "object":
      return { tree: { t: "array", items: [] }, got: "array" };
    case "array":
      return { tree: { t: "object", entries: [] }, got: "object" };
  }
}

/** The tree with the value at `at` replaced. */
export function replaceAt(tree: Tree, at: Segment[], replacement: Tree): Tree {
  if (at.length === 0) return replacement;
  const [head, ...rest] = at;
  if (tree.t === "object") return { ...tree, entries: tree.entries.map(([k, v]) => [k, k === head ? replaceAt(v, rest, replacement) : v]) };
  if (tree.t === "array") return { ...tree, items: tree.items.map((v, i) => (i === head ? replaceAt(v, rest, replacement) : v)) };
  return tree;
}

/** The tree with every number spelled by `spell`. */
export function respell(tree: Tree, spell: (n: number) => string): Tree {
  switch (tree.t) {
    case "number":
      return { ...tree, lit: spell(tree.v) };
    case "object":
      return { ...tree, entries: tree.entries.map(([k, v]) => [k, respell(v, spell)]) };
    case "array":
      return { ...tree, items: tree.items.map((v) => respell(v, spell)) };
    default:
      return tree;
  }
}
