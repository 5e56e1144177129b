import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { JsonValue } from "../json/value.js";
import { compile, type Schema } from "../schema/compile.js";
import { PACKAGE_ROOT } from "./corpus.js";
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

/** Any value as a JSON value: JSON.parse's output as it is; what JSON cannot hold (undefined, Infinity) as null and 0. */
export function toJsonValue(value: unknown): JsonValue {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : 0;
  if (Array.isArray(value)) return value.map(toJsonValue);
  if (typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, toJsonValue(item)]));
  return null;
}
