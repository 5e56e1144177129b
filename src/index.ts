// The reference: a tool registry and its JSON Schema subset validator (the ag.02 contract).
export { JsonNumber } from "./json/number.js";
export { parseJSON, JsonSyntaxError, MAX_DEPTH } from "./json/parse.js";
export type { JsonValue, JsonObject } from "./json/value.js";
export { compile, Schema, SchemaError, ValidationError } from "./schema/compile.js";
export { messages, ERROR_PREFIX } from "./schema/messages.js";
export { formatPath, formatPointer, renderPath, type Segment, type PathStyle } from "./schema/path.js";
export { Registry, describeThrown, type Profile, type RegistryOptions, type RegisterOptions } from "./registry/registry.js";
export { Result } from "./registry/result.js";
export { newTool, FuncTool, ToolError, type Tool, type ToolFunction } from "./registry/tool.js";
export { NAME_PATTERN, DOTTED_NAME_PATTERN } from "./registry/names.js";
export type { ToolCall, ToolDef, ToolMessage } from "./registry/wire.js";
