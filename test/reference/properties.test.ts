import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compile, newTool, Registry, Result, SchemaError } from "../../src/index.js";
import { formatPath } from "../../src/schema/path.js";
import { modelArb, places, render, replaceAt, respell, schemaOf, validTree, wrongTyped, type Model } from "../helpers/arbitraries.js";

// The laws the reference keeps for every input, checked on generated cases.

/** Go's order: the byte order of UTF-8 texts (independent of the reference's own comparison). */
const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));

const modelAndValue = modelArb.chain((model) => fc.tuple(fc.constant(model), validTree(model)));
const schemaTextOf = (model: Model) => JSON.stringify(schemaOf(model));

describe("laws of the validator", () => {
  it("compile never throws anything but a SchemaError, for any text", () => {
    const text = fc.oneof(fc.string({ unit: "binary" }), fc.jsonValue().map((v) => JSON.stringify(v)), modelArb.map(schemaTextOf));
    fc.assert(
      fc.property(text, (schemaText) => {
        try {
          compile(schemaText);
        } catch (error) {
          expect(error).toBeInstanceOf(SchemaError);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it("validation never throws, for any argument text or bytes", () => {
    const schemas = [compile("{}"), compile('{"type":"object","properties":{"a":{"type":"string","pattern":"^x"}},"required":["a"]}')];
    const text = fc.oneof(
      fc.string({ unit: "binary" }),
      fc.uint8Array().map((bytes) => Buffer.from(bytes).toString("utf8")),
      fc.jsonValue().map((v) => JSON.stringify(v)),
    );
    fc.assert(
      fc.property(text, fc.constantFrom(...schemas), (argumentText, schema) => {
        expect(Array.isArray(schema.validateJSON(argumentText))).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it("a value built to satisfy a schema passes it", () => {
    fc.assert(
      fc.property(modelAndValue, ([model, tree]) => {
        expect(compile(schemaTextOf(model)).validateJSON(render(tree)).map(String)).toEqual([]);
      }),
      { numRuns: 500 },
    );
  });

  it("one value of the wrong type yields exactly one error, at exactly its path", () => {
    const violated = modelAndValue.chain(([model, tree]) => fc.tuple(fc.constant(model), fc.constant(tree), fc.constantFrom(...places(tree, model))));
    fc.assert(
      fc.property(violated, ([model, tree, place]) => {
        const wrong = wrongTyped(place.model);
        const errors = compile(schemaTextOf(model)).validateJSON(render(replaceAt(tree, place.at, wrong.tree)));
        const expectedType = place.model.kind === "enum" ? "string" : place.model.kind;
        expect(errors.map(String)).toEqual([`${formatPath(place.at)}: expected ${expectedType}, got ${wrong.got}`]);
      }),
      { numRuns: 500 },
    );
  });

  it("errors are sorted by path, then message, and the same on every run", () => {
    const anyInstance = modelAndValue.chain(([model, tree]) =>
      fc.tuple(fc.constant(model), fc.oneof(fc.constant(render(tree)), fc.jsonValue().map((v) => JSON.stringify(v)))),
    );
    fc.assert(
      fc.property(anyInstance, ([model, text]) => {
        const schema = compile(schemaTextOf(model));
        const first = schema.validateJSON(text).map((e) => ({ path: e.path, message: e.message }));
        const sorted = [...first].sort((a, b) => byteOrder(a.path, b.path) || byteOrder(a.message, b.message));
        expect(first).toEqual(sorted);
        expect(compile(schemaTextOf(model)).validateJSON(text).map((e) => ({ path: e.path, message: e.message }))).toEqual(first);
      }),
      { numRuns: 500 },
    );
  });

  it("adding annotations changes nothing", () => {
    const annotate = (schema: unknown, extra: Record<string, unknown>): unknown => {
      if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return schema;
      const copy: Record<string, unknown> = { ...extra, ...(schema as Record<string, unknown>) };
      for (const key of ["items", "additionalProperties"]) if (key in copy) copy[key] = annotate(copy[key], extra);
      if (copy.properties) {
        copy.properties = Object.fromEntries(Object.entries(copy.properties as Record<string, unknown>).map(([k, v]) => [k, annotate(v, extra)]));
      }
      return copy;
    };
    const annotations = fc.record(
      { title: fc.string(), description: fc.string(), default: fc.jsonValue(), examples: fc.array(fc.jsonValue()), $schema: fc.string() },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(modelAndValue, annotations, fc.jsonValue(), ([model, tree], extra, noise) => {
        for (const text of [render(tree), JSON.stringify(noise)]) {
          const plain = compile(schemaTextOf(model)).validateJSON(text).map(String);
          const annotated = compile(JSON.stringify(annotate(schemaOf(model), extra))).validateJSON(text).map(String);
          expect(annotated).toEqual(plain);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("rewriting a number as an equal literal (1, 1.0, 1e0, 10e-1) changes neither the verdict nor the paths", () => {
    const spellings: ((n: number) => string)[] = [
      (n) => String(n),
      (n) => (Number.isInteger(n) ? `${n}.0` : `${n}00`),
      (n) => `${n}e0`,
      (n) => `${n * 10}e-1`,
      (n) => (n === 0 ? "-0" : `${n / 10}e1`),
    ];
    const violatedOrNot = modelAndValue.chain(([model, tree]) =>
      fc.tuple(fc.constant(model), fc.oneof(fc.constant(tree), fc.constantFrom(...places(tree, model)).map((p) => replaceAt(tree, p.at, wrongTyped(p.model).tree)))),
    );
    fc.assert(
      fc.property(violatedOrNot, fc.constantFrom(...spellings), ([model, tree], spell) => {
        const schema = compile(schemaTextOf(model));
        const paths = (text: string) => schema.validateJSON(text).map((e) => e.path);
        expect(paths(render(respell(tree, spell)))).toEqual(paths(render(tree)));
      }),
      { numRuns: 500 },
    );
  });
});

describe("laws of the registry", () => {
  const name = fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/);

  it("call never throws or rejects, whatever the name, the arguments or the tool does", async () => {
    const thrown = fc.oneof(fc.jsonValue(), fc.constant(undefined), fc.string().map((s) => new Error(s)));
    await fc.assert(
      fc.asyncProperty(fc.string(), fc.string({ unit: "binary" }), thrown, fc.boolean(), async (callName, args, value, sync) => {
        const registry = new Registry({ timeoutMs: 50 });
        registry.mustRegister(
          newTool("thrower", "throws", undefined, () => {
            if (sync) throw value;
            return Promise.reject(value);
          }),
        );
        for (const target of [callName, "thrower"]) {
          const result = await registry.call({ id: "c", name: target, arguments: args });
          expect(result).toBeInstanceOf(Result);
          if (result.isError) expect(result.message().content.startsWith("error: ")).toBe(true);
          expect(result.message().content).not.toMatch(/\n\s+at /);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("definitions and names do not depend on registration order", () => {
    const tools = fc.uniqueArray(fc.record({ name, description: fc.string() }), { minLength: 1, maxLength: 8, selector: (t) => t.name });
    fc.assert(
      fc.property(tools.chain((list) => fc.tuple(fc.constant(list), fc.shuffledSubarray(list, { minLength: list.length }))), ([list, shuffled]) => {
        const build = (order: typeof list) => {
          const registry = new Registry();
          for (const t of order) registry.mustRegister(newTool(t.name, t.description, undefined, () => ""));
          return registry;
        };
        const [a, b] = [build(list), build(shuffled)];
        expect(b.definitions()).toEqual(a.definitions());
        expect(b.names()).toEqual(a.names());
        expect(a.names()).toEqual([...a.names()].sort(byteOrder));
      }),
      { numRuns: 300 },
    );
  });

  it("N concurrent calls each get their own result, and each tool runs exactly as often as it was validly called", async () => {
    const call = fc.record({ tool: fc.integer({ min: 0, max: 2 }), valid: fc.boolean(), n: fc.integer({ min: 0, max: 99 }), delay: fc.integer({ min: 0, max: 3 }) });
    await fc.assert(
      fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 20 }), async (calls) => {
        const runs = [0, 0, 0];
        const registry = new Registry();
        for (const i of [0, 1, 2]) {
          const schema = '{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}';
          registry.mustRegister(
            newTool(`tool${i}`, "", schema, async (args) => {
              runs[i]!++;
              await new Promise((resolve) => setTimeout(resolve, calls.length % 4));
              return `tool${i} got ${args}`;
            }),
          );
        }
        const results = await Promise.all(
          calls.map((c, k) => registry.call({ id: `call_${k}`, name: `tool${c.tool}`, arguments: c.valid ? `{"n":${c.n}}` : `{"n":"${c.n}"}` })),
        );
        results.forEach((result, k) => {
          const c = calls[k]!;
          expect(result.callId).toBe(`call_${k}`);
          expect(result.isError).toBe(!c.valid);
          if (c.valid) expect(result.content).toBe(`tool${c.tool} got {"n":${c.n}}`);
        });
        for (const i of [0, 1, 2]) expect(runs[i]).toBe(calls.filter((c) => c.valid && c.tool === i).length);
      }),
      { numRuns: 100 },
    );
  });
});
