import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { JsonValue } from "../json/value.js";
import { compile, type Schema } from "../schema/compile.js";
import { PACKAGE_ROOT } from "../corpus/load.js";
import type { Command } from "./protocol.js";

// The protocol's messages as JSON Schemas (conformance/protocol/), checked with the
// reference's own validator: the harness holds every subject's replies to them.

export const PROTOCOL_DIR = join(PACKAGE_ROOT, "conformance", "protocol");

export const COMMANDS: readonly Command[] = ["start", "compile", "validate", "registry", "register", "names", "definitions", "call", "concurrently", "get", "stop"];

export type MessageKind = `${Command}.request` | `${Command}.reply` | "errored.reply";

const cache = new Map<MessageKind, Schema>();

/** The compiled schema of one message, read from conformance/protocol/KIND.schema.json. */
export function messageSchema(kind: MessageKind): Schema {
  let schema = cache.get(kind);
  if (!schema) {
    schema = compile(readFileSync(join(PROTOCOL_DIR, `${kind}.schema.json`), "utf8"));
    cache.set(kind, schema);
  }
  return schema;
}

/** What is wrong with a message (at most `max` errors, "PATH: message" each), or [] when it conforms. */
export function checkMessage(kind: MessageKind, message: unknown, max = 3): string[] {
  return messageSchema(kind)
    .validate(toJsonValue(message))
    .slice(0, max)
    .map(String);
}

/**
 * checkMessage's problems, each followed by the value it is about, clipped: `$.names: expected
 * array, got object: {}` shows the person fixing the adapter what it sent.
 */
export function explainMessage(kind: MessageKind, message: unknown, max = 3): string[] {
  return explain(kind, message, message, max);
}

/** The problems of `checked`, each shown with its value in `shown` (the reply as sent, before anything the check adds). */
function explain(kind: MessageKind, checked: unknown, shown: unknown, max: number): string[] {
  const value = toJsonValue(shown);
  return messageSchema(kind)
    .validate(toJsonValue(checked))
    .slice(0, max)
    .map((error) => `${String(error)}: ${clip(JSON.stringify(valueAt(value, error.segments)) ?? "undefined")}`);
}

/**
 * What is wrong with one reply inside a `concurrently` batch: it is the reply of its own command,
 * without `seq`, and a call's may leave out `runs` (PROTOCOL.md, concurrently).
 */
export function explainBatchReply(cmd: Command, reply: unknown, max = 3): string[] {
  if (typeof reply !== "object" || reply === null || Array.isArray(reply)) return [`$: expected object: ${clip(JSON.stringify(toJsonValue(reply)))}`];
  return explain(`${cmd}.reply`, { seq: 0, ...(cmd === "call" ? { runs: {} } : {}), ...reply }, reply, max);
}

function valueAt(value: JsonValue, segments: readonly (string | number)[]): JsonValue | undefined {
  let at: JsonValue | undefined = value;
  for (const segment of segments) at = typeof at === "object" && at !== null && Object.hasOwn(at, segment) ? (at as Record<string, JsonValue>)[segment] : undefined;
  return at;
}

function clip(text: string): string {
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}

/** Any value as a JSON value: JSON.parse's output as it is; what JSON cannot hold (undefined, Infinity) as null and 0. */
export function toJsonValue(value: unknown): JsonValue {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : 0;
  if (Array.isArray(value)) return value.map(toJsonValue);
  if (typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, toJsonValue(item)]));
  return null;
}
