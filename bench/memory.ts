import { Validator as CfworkerValidator } from "@cfworker/json-schema";
import Ajv2020Module from "ajv/dist/2020.js";
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { availableParallelism, totalmem } from "node:os";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { GCProfiler, getHeapStatistics } from "node:v8";
import { compile } from "tool-conformance";
import { EXACT_LABEL, MEMORY_SCHEMA, MEMORY_SHAPE, SIDES, memoryArgument, type Side } from "./cases.js";

// Bytes allocated by one call on a 1 MB argument. Each side runs in its own `node` with a
// young generation large enough that one call never triggers a scavenge: after gc() the heap
// grows by exactly what the call allocates. A run during which a GC happened anyway (the
// GCProfiler saw one) is discarded and redone; the figure is the median of RUNS clean runs.
//
//   node dist/bench/memory.js [out.json]   measure every side, print a table, write out.json
//   node dist/bench/memory.js --child SIDE  (internal) measure one side, print JSON

const RUNS = 9;
const WARMUP = 10;
const MAX_DISCARDED = 20;
const NODE_FLAGS = ["--expose-gc", "--min-semi-space-size=256", "--max-semi-space-size=256"];
/** "exact": the reference on the same argument with one number respelled, so the exact parser reads the whole text. */
type MemorySide = Side | "nothing" | "exact";
const ORDER: readonly MemorySide[] = ["nothing", "parse", "reference", "exact", "ajv", "cfworker"];


export interface MemoryResult {
  side: MemorySide;
  median: number;
  samples: number[];
  discarded: number;
}

export interface MemoryReport {
  machine: { cores: number; memoryGiB: number; node: string; platform: string; versions: Record<string, string> };
  argument: { bytes: number; rows: number; shape: string };
  method: { runs: number; nodeFlags: string[] };
  results: MemoryResult[];
}

const Ajv2020 = Ajv2020Module.default ?? Ajv2020Module;

/** One call of `side` on `text`, after checking that the side finds the argument valid. */
function caller(side: MemorySide, text: string): () => unknown {
  const fail = (): never => {
    throw new Error(`memory: ${side} finds the 1 MB argument invalid; it must be valid for every side`);
  };
  switch (side) {
    case "nothing":
      return () => undefined;
    case "parse":
      return () => JSON.parse(text);
    case "reference":
    case "exact": {
      // "0.250" is not the text of its float64, so the text is not plain: JSON.parse cannot stand in
      const argument = side === "exact" ? text.replace('"score":0.25}', '"score":0.250}') : text;
      if (argument === text && side === "exact") throw new Error("memory: the argument has no score 0.25 to respell");
      const schema = compile(JSON.stringify(MEMORY_SCHEMA));
      if (schema.validateJSON(argument).length > 0) fail();
      return () => schema.validateJSON(argument);
    }
    case "ajv": {
      const validate = new Ajv2020({ allErrors: true, logger: false }).compile(MEMORY_SCHEMA);
      if (!validate(JSON.parse(text))) fail();
      return () => validate(JSON.parse(text));
    }
    case "cfworker": {
      const validator = new CfworkerValidator(MEMORY_SCHEMA as object, "2020-12", false);
      if (!validator.validate(JSON.parse(text)).valid) fail();
      return () => validator.validate(JSON.parse(text));
    }
  }
}

function child(side: MemorySide): MemoryResult {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("memory: run with --expose-gc");
  const call = caller(side, memoryArgument().text);
  let sink: unknown;
  let discarded = 0;
  // bytes allocated by one call, or undefined if a GC ran during it
  const measure = (): number | undefined => {
    sink = undefined;
    gc();
    const profiler = new GCProfiler();
    profiler.start();
    const before = getHeapStatistics().used_heap_size;
    sink = call(); // kept alive until after the second reading
    const after = getHeapStatistics().used_heap_size;
    if (profiler.stop().statistics.length > 0 || after < before) {
      if (++discarded > MAX_DISCARDED) throw new Error(`memory: ${side}: a GC ran during ${discarded} calls; the young generation is too small`);
      return undefined;
    }
    return after - before;
  };
  // the first rounds also count the optimizing compiler's code for the call and this loop
  for (let i = 0; i < WARMUP; i++) measure();
  discarded = 0;
  const samples: number[] = [];
  while (samples.length < RUNS) {
    const bytes = measure();
    if (bytes !== undefined) samples.push(bytes);
  }
  void sink;
  const sorted = [...samples].sort((a, b) => a - b);
  return { side, median: sorted[Math.floor(sorted.length / 2)]!, samples, discarded };
}

function version(name: string): string {
  return (createRequire(import.meta.url)(`${name}/package.json`) as { version: string }).version;
}

const ratio = (bytes: number, floor: number) => `${(bytes / floor).toFixed(2)}×`;

function main(out: string): void {
  const self = fileURLToPath(import.meta.url);
  const results = ORDER.map((side) => {
    const run = spawnSync(process.execPath, [...NODE_FLAGS, self, "--child", side], { encoding: "utf8" });
    if (run.status !== 0) throw new Error(`memory: the ${side} child failed (exit ${run.status}):\n${run.stderr}`);
    return JSON.parse(run.stdout) as MemoryResult;
  });
  const { text, rows } = memoryArgument();
  const report: MemoryReport = {
    machine: {
      cores: availableParallelism(),
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      node: process.version,
      platform: `${process.platform} ${process.arch}`,
      versions: Object.fromEntries(["vitest", "ajv", "@cfworker/json-schema"].map((name) => [name, version(name)])),
    },
    argument: { bytes: text.length, rows, shape: MEMORY_SHAPE },
    method: { runs: RUNS, nodeFlags: NODE_FLAGS },
    results,
  };
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify(report, null, 2) + "\n");

  const floor = results.find((r) => r.side === "parse")!.median;
  const label = (side: MemorySide) => (side === "nothing" ? "(nothing: the measurement itself)" : side === "exact" ? EXACT_LABEL : SIDES[side]);
  const width = Math.max(...results.map((r) => label(r.side).length));
  console.log(`\nmemory: one call on a ${text.length.toLocaleString("en-US")}-byte argument of ${rows.toLocaleString("en-US")} rows`);
  console.log(`  ${MEMORY_SHAPE.replaceAll("`", "")}`);
  console.log(`  median of ${RUNS} runs each, node ${NODE_FLAGS.join(" ")}; runs with a GC discarded and redone\n`);
  for (const r of results) {
    const figure = `${r.median.toLocaleString("en-US").padStart(12)} bytes`;
    const times = r.side === "nothing" ? "" : `  ${ratio(r.median, floor).padStart(7)} JSON.parse`;
    console.log(`  ${label(r.side).padEnd(width)}  ${figure}${times}${r.discarded ? `  (${r.discarded} discarded)` : ""}`);
  }
  const reference = results.find((r) => r.side === "reference")!.median;
  console.log(`\n  target, the reference within 2× JSON.parse: ${reference <= 2 * floor ? "met" : "NOT met"} (${ratio(reference, floor)})`);
  console.log(`wrote ${out}\n`);
}

if (process.argv[2] === "--child") {
  const side = process.argv[3] as MemorySide;
  if (!ORDER.includes(side)) throw new Error(`memory: unknown side ${side}`);
  process.stdout.write(JSON.stringify(child(side)));
} else {
  main(process.argv[2] ?? "reports/bench/memory.json");
}
