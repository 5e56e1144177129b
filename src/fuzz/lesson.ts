import type { Model, Tree } from "./model.js";

// The lesson profile's generated cases (seed 001): schemas in the lesson's eight keywords (type,
// properties, required, enum, minLength, maxLength, pattern, items) with their 2020-12 meaning,
// written as the lesson writes them, so that its core fixes every answer. Seed 000's models are
// narrowed: bounds, const, anyOf, type lists and additionalProperties are not the lesson's; an
// enum holds primitive values only and has no type beside it (the lesson's "untyped enum check");
// properties and required only under type object, items only under type array (the lesson's walker
// dispatches on type). Whole JSON texts only: the lesson validates parsed arguments.

/** A seed-000 model narrowed to the lesson's eight keywords. */
export function lessonModel(model: Model): Model {
  switch (model.kind) {
    case "string":
    case "boolean":
    case "null":
      return model;
    case "integer":
    case "number":
      return { kind: model.kind, typed: true };
    case "union":
      return simple(model.types[0]!);
    case "enum": {
      const values = model.values.filter(isPrimitive);
      return values.length > 0 ? { kind: "enum", values } : { kind: "null" };
    }
    case "const":
      return isPrimitive(model.value) ? { kind: "enum", values: [model.value] } : { kind: "null" };
    case "object":
      return { kind: "object", props: model.props.map((p) => ({ ...p, model: lessonModel(p.model) })) };
    case "array":
      return { kind: "array", ...(model.items ? { items: lessonModel(model.items) } : {}) };
    case "anyOf":
      return lessonModel(model.branches[0]!);
  }
}

function simple(type: "string" | "integer" | "null" | "boolean"): Model {
  return type === "string" ? { kind: "string", typed: true } : type === "integer" ? { kind: "integer", typed: true } : { kind: type };
}

function isPrimitive(tree: Tree): boolean {
  return tree.t === "string" || tree.t === "number" || tree.t === "boolean" || tree.t === "null";
}
