import fc from "fast-check";
import type { Domain } from "./domain.js";
import { numberTree, stringTree, type Model, type Tree } from "./model.js";

// Arguments aimed at a schema model: values it accepts, near misses on each keyword's boundary
// (one below minimum, one past maxLength, a required property left out, one property too many,
// a wrong type, a whole number respelled), and any value at all.

/** An argument for the model: valid, a near miss, or anything. */
export function aimedTree(model: Model, domain: Domain): fc.Arbitrary<Tree> {
  const arbs = [{ weight: 3, arbitrary: validTree(model, domain) }, { weight: 4, arbitrary: missTree(model, domain) }, { weight: 1, arbitrary: anyTree(domain, 2) }];
  if (domain.duplicateKeys) arbs.push({ weight: 1, arbitrary: validTree(model, domain).map(withDuplicateKey) });
  return fc.oneof(...arbs);
}

/** The object with its first property written twice (JSON texts may; what it means is not fixed). */
function withDuplicateKey(tree: Tree): Tree {
  return tree.t === "object" && tree.entries.length > 0 ? { ...tree, entries: [...tree.entries, tree.entries[0]!] } : tree;
}

/** A value the model accepts (as far as a generator can tell: the reference decides). */
export function validTree(model: Model, domain: Domain): fc.Arbitrary<Tree> {
  switch (model.kind) {
    case "string": {
      const strings =
        model.pattern !== undefined
          ? fc.constantFrom(...domain.patterns[model.pattern]!.matches).map((v) => ({ t: "string" as const, v }))
          : stringTree(domain, model.minLength ?? 0, model.maxLength ?? (model.minLength ?? 0) + 4);
      // keywords apply to strings only: without `type`, any other value passes
      return model.typed ? strings : fc.oneof(strings, scalar(domain));
    }
    case "integer":
    case "number": {
      const inside = domain.numbers.filter((n) => (model.kind === "number" || Number.isInteger(n)) && within(n, model.minimum, model.maximum));
      const edges = [model.minimum, model.maximum].filter((n): n is number => n !== undefined && (model.kind === "number" || Number.isInteger(n)));
      const values = [...new Set([...edges, ...inside])];
      const numbers = values.length > 0 ? numberTree(domain, fc.constantFrom(...values)) : fc.constant({ t: "number" as const, v: model.minimum ?? 0 });
      return model.typed ? numbers : fc.oneof(numbers, scalar(domain));
    }
    case "boolean":
      return fc.boolean().map((v) => ({ t: "boolean" as const, v }));
    case "null":
      return fc.constant({ t: "null" as const });
    case "union":
      return fc.oneof(...model.types.map((type) => validTree(type === "string" ? { kind: "string", typed: true } : type === "integer" ? { kind: "integer", typed: true } : { kind: type }, domain)));
    case "enum":
      return fc.constantFrom(...model.values).chain((v) => respelled(v, domain));
    case "const":
      return respelled(model.value, domain);
    case "object":
      return objectTree(model, domain, (m) => validTree(m, domain));
    case "array": {
      const min = model.minItems ?? 0;
      return fc.array(model.items ? validTree(model.items, domain) : anyTree(domain, 1), { minLength: min, maxLength: model.maxItems ?? min + 3 }).map((items) => ({ t: "array" as const, items }));
    }
    case "anyOf":
      return fc.oneof(...model.branches.map((b) => validTree(b, domain)));
  }
}

/** A value just outside what the model accepts. */
export function missTree(model: Model, domain: Domain): fc.Arbitrary<Tree> {
  const misses: fc.Arbitrary<Tree>[] = [];
  switch (model.kind) {
    case "string":
      if (model.minLength !== undefined && model.minLength > 0) misses.push(stringTree(domain, model.minLength - 1, model.minLength - 1));
      if (model.maxLength !== undefined) misses.push(stringTree(domain, model.maxLength + 1, model.maxLength + 1));
      if (model.pattern !== undefined) misses.push(fc.constantFrom(...domain.patterns[model.pattern]!.misses).map((v) => ({ t: "string" as const, v })));
      misses.push(scalar(domain));
      break;
    case "integer":
    case "number": {
      const step = model.kind === "integer" ? 1 : 0.5;
      if (model.minimum !== undefined) misses.push(numberTree(domain, fc.constant(Math.floor(model.minimum) - step)));
      if (model.maximum !== undefined) misses.push(numberTree(domain, fc.constant(Math.ceil(model.maximum) + step)));
      if (model.kind === "integer") misses.push(fc.constantFrom(0.5, 1.5, 2.5e-7).map((v) => ({ t: "number" as const, v })));
      misses.push(fc.constantFrom("3", "1", "").map((v) => ({ t: "string" as const, v })), scalar(domain));
      break;
    }
    case "boolean":
    case "null":
    case "union":
      misses.push(scalar(domain));
      break;
    case "enum":
    case "const": {
      // a listed value's look-alikes: what a loose equality takes for it (`[true]` for `[1]`)
      const alike = (model.kind === "enum" ? model.values : [model.value]).flatMap(lookAlikes);
      misses.push(scalar(domain));
      if (alike.length > 0) misses.push(fc.constantFrom(...alike));
      break;
    }
    case "object": {
      misses.push(fc.constant({ t: "array" as const, items: [] }), scalar(domain));
      const required = model.props.filter((p) => p.required);
      if (required.length > 0) {
        misses.push(
          fc.constantFrom(...required.map((p) => p.name)).chain((left) =>
            objectTree({ ...model, props: model.props.filter((p) => p.name !== left) }, domain, (m) => validTree(m, domain)),
          ),
        );
      }
      const extra = domain.names.filter((name) => !model.props.some((p) => p.name === name));
      if (extra.length > 0 && model.additional !== undefined) {
        const value = model.additional === false ? anyTree(domain, 1) : missTree(model.additional, domain);
        misses.push(
          fc.tuple(objectTree(model, domain, (m) => validTree(m, domain)), fc.constantFrom(...extra), value).map(([tree, name, v]) => ({
            t: "object" as const,
            entries: [...(tree as Extract<Tree, { t: "object" }>).entries.filter(([k]) => k !== name), [name, v] as [string, Tree]],
          })),
        );
      }
      if (model.props.length > 0) {
        misses.push(
          fc.nat(model.props.length - 1).chain((i) => {
            const forced = { ...model, props: model.props.map((p, j) => (j === i ? { ...p, required: true } : p)) };
            return objectTree(forced, domain, (m) => (m === model.props[i]!.model ? missTree(m, domain) : validTree(m, domain)));
          }),
        );
      }
      break;
    }
    case "array": {
      misses.push(fc.constant({ t: "object" as const, entries: [] }), scalar(domain));
      const item = model.items ? validTree(model.items, domain) : anyTree(domain, 1);
      if (model.minItems !== undefined && model.minItems > 0) misses.push(fc.array(item, { minLength: model.minItems - 1, maxLength: model.minItems - 1 }).map((items) => ({ t: "array" as const, items })));
      if (model.maxItems !== undefined) misses.push(fc.array(item, { minLength: model.maxItems + 1, maxLength: model.maxItems + 1 }).map((items) => ({ t: "array" as const, items })));
      if (model.items) {
        const min = Math.max(1, model.minItems ?? 0);
        const max = Math.max(min, model.maxItems ?? min + 2);
        misses.push(
          fc.tuple(fc.array(item, { minLength: min - 1, maxLength: max - 1 }), missTree(model.items, domain), fc.nat()).map(([items, bad, at]) => {
            const copy = [...items];
            copy.splice(at % (items.length + 1), 0, bad);
            return { t: "array" as const, items: copy };
          }),
        );
      }
      break;
    }
    case "anyOf":
      misses.push(...model.branches.map((b) => missTree(b, domain)));
      break;
  }
  return fc.oneof(...misses);
}

/** An object for the model: required properties present, optional ones sometimes, extras where allowed. */
function objectTree(model: Extract<Model, { kind: "object" }>, domain: Domain, child: (m: Model) => fc.Arbitrary<Tree>): fc.Arbitrary<Tree> {
  const parts = model.props.map((p) => fc.tuple(p.required ? fc.constant(true) : fc.boolean(), child(p.model)).map(([present, tree]) => (present ? [[p.name, tree] as [string, Tree]] : [])));
  const unused = domain.names.filter((name) => !model.props.some((p) => p.name === name));
  const extras =
    model.additional === false || unused.length === 0
      ? fc.constant([] as [string, Tree][])
      : fc.uniqueArray(fc.tuple(fc.constantFrom(...unused), model.additional ? validTree(model.additional, domain) : anyTree(domain, 1)), { maxLength: 1, selector: ([k]) => k });
  return fc.tuple(fc.tuple(...parts), extras).map(([present, more]) => ({ t: "object" as const, entries: [...present.flat(), ...more] }));
}

/** Any JSON value, nested at most `depth` levels. */
export function anyTree(domain: Domain, depth: number): fc.Arbitrary<Tree> {
  if (depth === 0) return scalar(domain);
  const below = anyTree(domain, depth - 1);
  return fc.oneof(
    { depthSize: "small" },
    scalar(domain),
    fc.array(below, { maxLength: 3 }).map((items) => ({ t: "array" as const, items })),
    fc.uniqueArray(fc.tuple(fc.constantFrom(...domain.names), below), { maxLength: 3, selector: ([k]) => k }).map((entries) => ({ t: "object" as const, entries })),
  );
}

function scalar(domain: Domain): fc.Arbitrary<Tree> {
  const arbs: fc.Arbitrary<Tree>[] = [
    stringTree(domain, 0, 4),
    numberTree(domain, fc.constantFrom(...domain.numbers)),
    fc.boolean().map((v) => ({ t: "boolean" as const, v })),
    fc.constant({ t: "null" as const }),
  ];
  const raw = [...domain.wideNumbers, ...domain.wideStrings];
  if (raw.length > 0) arbs.push(fc.constantFrom(...raw).map((text) => ({ t: "raw" as const, text })));
  return fc.oneof(...arbs);
}

/** The same value, whole numbers sometimes written another exact way (1 as 1.0), an object's keys in another order. */
function respelled(tree: Tree, domain: Domain): fc.Arbitrary<Tree> {
  switch (tree.t) {
    case "number":
      return numberTree(domain, fc.constant(tree.v));
    case "array":
      if (tree.items.length === 0) return fc.constant(tree);
      return fc.tuple(...tree.items.map((item) => respelled(item, domain))).map((items) => ({ t: "array" as const, items }));
    case "object": {
      if (tree.entries.length === 0) return fc.constant(tree);
      const entries = fc.tuple(...tree.entries.map(([key, value]) => respelled(value, domain).map((v) => [key, v] as [string, Tree])));
      return fc.tuple(entries, fc.boolean()).map(([list, reverse]) => ({ t: "object" as const, entries: reverse ? [...list].reverse() : list }));
    }
    default:
      return fc.constant(tree);
  }
}

/** Values a loose equality takes for this one: a scalar swapped for its look-alike anywhere in it, an array reordered or one element short. */
export function lookAlikes(tree: Tree): Tree[] {
  switch (tree.t) {
    case "number":
      return [...(tree.v === 1 ? [{ t: "boolean" as const, v: true }] : tree.v === 0 ? [{ t: "boolean" as const, v: false }, { t: "null" as const }] : []), { t: "string", v: String(tree.v) }];
    case "boolean":
      return [{ t: "number", v: tree.v ? 1 : 0 }, { t: "string", v: String(tree.v) }];
    case "null":
      return [{ t: "boolean", v: false }, { t: "number", v: 0 }, { t: "string", v: "" }];
    case "string":
      return tree.v !== "" && Number.isFinite(Number(tree.v)) ? [{ t: "number", v: Number(tree.v) }] : tree.v === "" ? [{ t: "null" }, { t: "boolean", v: false }] : [];
    case "array": {
      const swapped = tree.items.flatMap((item, i) => lookAlikes(item).map((alike) => ({ t: "array" as const, items: tree.items.map((x, j) => (j === i ? alike : x)) })));
      const reordered = tree.items.length > 1 ? [{ t: "array" as const, items: [...tree.items].reverse() }] : [];
      const shorter = tree.items.length > 0 ? [{ t: "array" as const, items: tree.items.slice(0, -1) }] : [{ t: "object" as const, entries: [] }];
      return [...swapped, ...reordered, ...shorter];
    }
    case "object": {
      const swapped = tree.entries.flatMap(([key, value], i) => lookAlikes(value).map((alike) => ({ t: "object" as const, entries: tree.entries.map((e, j) => (j === i ? ([key, alike] as [string, Tree]) : e)) })));
      return [...swapped, { t: "object", entries: tree.entries.slice(0, -1) }, { t: "array", items: tree.entries.map(([, v]) => v) }];
    }
    case "raw":
      return [];
  }
}

function within(n: number, min: number | undefined, max: number | undefined): boolean {
  return (min === undefined || n >= min) && (max === undefined || n <= max);
}
