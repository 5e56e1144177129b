// Package types holds the ag.01 chat types the tool registry needs (ToolDef, ToolCall, Message),
// with the names and json tags the seed's ag.01 gives them.
package types

import "encoding/json"

// ToolDef describes a tool to the model. Parameters is the JSON Schema text, kept as raw JSON so
// that it is sent byte for byte as registered (a json.RawMessage encodes as a JSON object).
type ToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// ToolCall is the model's request to run a tool. Arguments is the JSON text the model wrote,
// unparsed: it may be empty or malformed.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Message is one chat message; a tool's answer has Role "tool" and the call's ID.
type Message struct {
	Role       string `json:"role"`
	ToolCallID string `json:"tool_call_id"`
	Content    string `json:"content"`
}
