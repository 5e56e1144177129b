package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"tinyllm/agent/types"
)

// NamePattern is the tool names the contract allows.
var NamePattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

type entry struct {
	tool   Tool
	def    types.ToolDef
	schema *Schema
}

// Registry holds the tools. Safe for concurrent use: a RWMutex guards the map (calls run in
// parallel; the library's compiled schema is only read while validating).
type Registry struct {
	mu    sync.RWMutex
	tools map[string]entry
}

func NewRegistry() *Registry { return &Registry{tools: map[string]entry{}} }

// Register adds a tool: its name must match NamePattern and be new, its parameters must compile
// (gojsonschema's refusal, in its words) and declare "type": "object" (the model always sends an
// object). The registry is unchanged when it refuses.
func (r *Registry) Register(t Tool) error {
	def := t.Definition()
	if !NamePattern.MatchString(def.Name) {
		return fmt.Errorf("invalid tool name %q: must match %s", def.Name, NamePattern)
	}
	def.Parameters = json.RawMessage(parametersText(string(def.Parameters)))
	schema, err := Compile(def.Parameters)
	if err != nil {
		return fmt.Errorf("tool %q: invalid parameters: %v", def.Name, err)
	}
	var top struct {
		Type interface{} `json:"type"`
	}
	if json.Unmarshal(def.Parameters, &top) != nil || top.Type != "object" {
		return fmt.Errorf("tool %q: parameters must have \"type\": \"object\"", def.Name)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.tools[def.Name]; dup {
		return fmt.Errorf("tool %q is already registered", def.Name)
	}
	r.tools[def.Name] = entry{tool: t, def: def, schema: schema}
	return nil
}

// MustRegister registers each tool, panicking on the first refusal (for setup code).
func (r *Registry) MustRegister(ts ...Tool) *Registry {
	for _, t := range ts {
		if err := r.Register(t); err != nil {
			panic(err)
		}
	}
	return r
}

func (r *Registry) Get(name string) (Tool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	e, ok := r.tools[name]
	return e.tool, ok
}

// Names lists the tool names, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := make([]string, 0, len(r.tools))
	for n := range r.tools {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Definitions lists the definitions sorted by name: the prompt is the same bytes on every run.
func (r *Registry) Definitions() []types.ToolDef {
	r.mu.RLock()
	defer r.mu.RUnlock()
	defs := make([]types.ToolDef, 0, len(r.tools))
	for _, e := range r.tools {
		defs = append(defs, e.def)
	}
	sort.Slice(defs, func(i, j int) bool { return defs[i].Name < defs[j].Name })
	return defs
}

// Call validates the arguments with the tool's schema and runs the tool only if they pass. Every
// failure is an error Result; a panic of the tool is recovered (its value, never a stack trace).
func (r *Registry) Call(ctx context.Context, c types.ToolCall) Result {
	fail := func(format string, a ...interface{}) Result {
		return Result{CallID: c.ID, Name: c.Name, Content: fmt.Sprintf(format, a...), IsError: true}
	}
	r.mu.RLock()
	e, ok := r.tools[c.Name]
	r.mu.RUnlock()
	if !ok {
		available := "none"
		if names := r.Names(); len(names) > 0 {
			available = strings.Join(names, ", ")
		}
		return fail("unknown tool %q (available: %s)", c.Name, available)
	}
	args := c.Arguments
	if strings.TrimSpace(args) == "" { // some providers send "" for a call without parameters
		args = "{}"
	}
	if errs := e.schema.ValidateJSON([]byte(args)); len(errs) > 0 {
		lines := make([]string, len(errs)) // ValidateJSON sorted them by path, then message
		for i, ve := range errs {
			lines[i] = ve.Error()
		}
		return fail("invalid arguments for %s:\n%s", c.Name, strings.Join(lines, "\n"))
	}
	out, err, panicked := execute(ctx, e.tool, json.RawMessage(args))
	switch {
	case panicked != nil:
		return fail("tool %s panicked: %v", c.Name, panicked)
	case err != nil:
		return fail("tool %s failed: %v", c.Name, err)
	}
	return Result{CallID: c.ID, Name: c.Name, Content: out}
}

// execute runs the tool with a recover, so a panicking tool cannot kill the agent.
func execute(ctx context.Context, t Tool, args json.RawMessage) (out string, err error, panicked interface{}) {
	defer func() {
		if p := recover(); p != nil {
			panicked = p
		}
	}()
	out, err = t.Execute(ctx, args)
	return out, err, nil
}
