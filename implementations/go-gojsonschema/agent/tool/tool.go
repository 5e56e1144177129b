// Package tool is the seed's (ag.02) tool registry and argument validation, built on
// github.com/xeipuuv/gojsonschema: the validation is the library's (schema.go); the registry is
// written from the seed's text (registry.go), since the library has none.
package tool

import (
	"context"
	"encoding/json"
	"strings"

	"tinyllm/agent/types"
)

// Tool is what the registry runs: a definition for the model, and the code.
type Tool interface {
	Definition() types.ToolDef
	Execute(ctx context.Context, args json.RawMessage) (string, error)
}

// Func is a Tool made of a definition and a function.
type Func struct {
	Def types.ToolDef
	Fn  func(context.Context, json.RawMessage) (string, error)
}

func (f Func) Definition() types.ToolDef { return f.Def }

func (f Func) Execute(ctx context.Context, args json.RawMessage) (string, error) {
	return f.Fn(ctx, args)
}

// defaultParameters: the seed, "a missing schema means {"type":"object"}".
const defaultParameters = `{"type":"object"}`

// New builds a Func. A blank schema, or the text "null", is a missing schema (the seed).
func New(name, description, schema string, fn func(context.Context, json.RawMessage) (string, error)) Tool {
	return Func{Def: types.ToolDef{Name: name, Description: description, Parameters: json.RawMessage(parametersText(schema))}, Fn: fn}
}

func parametersText(schema string) string {
	if t := strings.TrimSpace(schema); t == "" || t == "null" {
		return defaultParameters
	}
	return schema
}

// Result is the outcome of one call; Content has no "error: " prefix, Message() adds it.
type Result struct {
	CallID, Name, Content string
	IsError               bool
}

// errorPrefix marks a failure in the tool message, so the model can tell it from output.
const errorPrefix = "error: "

// Message is the tool message that answers the call.
func (r Result) Message() types.Message {
	content := r.Content
	if r.IsError {
		content = errorPrefix + content
	}
	return types.Message{Role: "tool", ToolCallID: r.CallID, Content: content}
}
