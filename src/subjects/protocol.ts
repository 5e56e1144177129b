// The harness protocol: JSON Lines over stdio, one request a line, one reply a line.
// conformance/PROTOCOL.md describes it for adapter authors; conformance/protocol/*.json
// hold a JSON Schema for every message.

export const PROTOCOL_VERSION = 1;

import type { Behavior } from "../corpus/rows.js";

export type { Behavior };

export interface ToolSpec {
  name: string;
  description: string;
  /** The parameters schema as exact JSON text; null for a missing schema. */
  parameters: string | null;
  behavior: Behavior;
  /** The lesson profile's record fields (capability "records"). */
  idempotent?: boolean;
  timeoutMs?: number | null;
  handler?: "sync" | "async";
}

export type Request =
  | { seq: number; cmd: "start"; version: number; profile: string }
  | { seq: number; cmd: "compile"; schema: string }
  | { seq: number; cmd: "validate"; schema: string; instance: string }
  /** Against a registered tool's schema, by name (capability "records"). */
  | { seq: number; cmd: "validate"; tool: string; instance: string }
  | { seq: number; cmd: "get"; name: string }
  | { seq: number; cmd: "registry"; timeoutMs?: number }
  | { seq: number; cmd: "register"; tool: ToolSpec; override?: boolean }
  | { seq: number; cmd: "names" }
  | { seq: number; cmd: "definitions" }
  | { seq: number; cmd: "call"; call: { id: string; name: string; arguments: string } }
  | { seq: number; cmd: "concurrently"; requests: ConcurrentBody[] }
  | { seq: number; cmd: "stop" };

/** The requests a `concurrently` batch may hold, without seq. */
export type ConcurrentBody =
  | { cmd: "register"; tool: ToolSpec; override?: boolean }
  | { cmd: "names" }
  | { cmd: "definitions" }
  | { cmd: "call"; call: { id: string; name: string; arguments: string } };

export type Command = Request["cmd"];
/** A request before the transport stamps its seq. */
export type Body = Request extends infer R ? (R extends { seq: number } ? Omit<R, "seq"> : never) : never;

export interface Implementation {
  name: string;
  language: string;
  version?: string;
}

export interface StartReply {
  ready: true;
  version: number;
  implementation: Implementation;
  profiles: string[];
  /**
   * "validate" (compile and validate), "registry" (registry, register, names, definitions, call),
   * "concurrency" (concurrently), "records" (the lesson profile: record fields in register, get,
   * validate against a tool by name, expectedType on type errors).
   */
  capabilities: string[];
}

export interface WireError {
  path: string;
  message: string;
}

/**
 * The implementation raised or panicked inside its own call instead of answering: a valid reply to
 * every command that calls it (compile, validate, register, names, definitions, call, get, and each
 * reply inside `concurrently`). An answer, and a wrong one: the row fails, attributed to the
 * implementation. The adapter catches around the implementation's call alone; anything else going
 * wrong in the adapter is an errored reply.
 */
export interface ThrewReply {
  /** What it raised: the exception's type and message, or the panic value; never a stack trace. */
  threw: string;
}

export type CompileReply = { ok: true } | { ok: false; error: string } | ThrewReply;
export type ValidateReply = { ok: true; errors: WireError[] } | { ok: false; error: string } | ThrewReply;
export type RegisterReply = { ok: true } | { ok: false; error: string } | ThrewReply;
export type NamesReply = { names: string[] } | ThrewReply;
export type DefinitionsReply = { definitions: { name: string; description: string; parameters: unknown }[] } | ThrewReply;
export type GetReply = { found: true; record: Record<string, unknown> } | { found: false; error: string } | ThrewReply;
export type CallReply =
  | {
      result: { callId: string; name: string; content: string; isError: boolean };
      message: { role: string; tool_call_id: string; content: string };
      /** The argument texts each tool ran with during this call. */
      runs: Record<string, string[]>;
    }
  /** Call itself panicked or threw this instead of returning a Result: an answer, and a wrong one. */
  | ThrewReply;

export interface ConcurrentlyReply {
  /** One reply per request, in request order, without seq; any of them may be a ThrewReply. */
  replies: Record<string, unknown>[];
  /** Every tool run during the batch, per tool, in any order. */
  runs: Record<string, string[]>;
}

/**
 * Any request may be answered with this instead of its reply: the adapter could not carry the
 * request out (an exception in the adapter's own code, outside the implementation's call; an
 * unknown command; a request it could not read, `seq` then null). The row is errored, blamed on
 * the adapter; the session goes on. What the implementation raises is a ThrewReply instead.
 */
export interface ErroredReply {
  errored: true;
  message: string;
}

/** Sends one request (seq stamped by the transport) and resolves to its reply, without seq. */
export type Send = (body: Body) => Promise<Record<string, unknown>>;
