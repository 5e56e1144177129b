// The reference: a tool registry and its JSON Schema subset validator (the ag.02 contract, and seed 001's lesson profile).
export { JsonNumber } from "./json/number.js";
export { parseJSON, JsonSyntaxError, MAX_DEPTH } from "./json/parse.js";
export type { JsonValue, JsonObject } from "./json/value.js";
export { compile, isLesson, Schema, SchemaError, ValidationError, type CompileOptions } from "./schema/compile.js";
export { compileECMA, translateECMA } from "./schema/ecma.js";
export type { Expression } from "./schema/linear.js";
export { messages, ERROR_PREFIX } from "./schema/messages.js";
export { formatPath, formatPointer, renderPath, type Segment, type PathStyle } from "./schema/path.js";
export { Registry, LookupError, describeThrown, type Profile, type RegistryOptions, type RegisterOptions, type ToolRecord } from "./registry/registry.js";
export { Result } from "./registry/result.js";
export { newTool, FuncTool, ToolError, handlerKindOf, type HandlerKind, type Tool, type ToolFunction } from "./registry/tool.js";
export { NAME_PATTERN, DOTTED_NAME_PATTERN } from "./registry/names.js";
export type { ToolCall, ToolDef, ToolMessage } from "./registry/wire.js";
