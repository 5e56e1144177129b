// Command adapter serves a tool package (the ag.02 Go API) over the tool-conformance stdio
// protocol (conformance/PROTOCOL.md, version 1): one JSON request a line on stdin, one reply
// a line on stdout, logs on stderr. Put it in your module (e.g. cmd/adapter/main.go) and run
//
//	tool-conformance smoke --subject "go run ./cmd/adapter"
//
// Three lines depend on your ag.01 types (package types); they are marked ADJUST.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"tinyllm/agent/tool"
	"tinyllm/agent/types"
)

type request struct {
	Seq      *int64                               `json:"seq"`
	Cmd      string                               `json:"cmd"`
	Schema   string                               `json:"schema"`
	Instance string                               `json:"instance"`
	Timeout  int                                  `json:"timeoutMs"`
	Tool     toolSpec                             `json:"tool"`
	Call     struct{ ID, Name, Arguments string } `json:"call"`
}

type toolSpec struct {
	Name, Description string
	Parameters        *string
	Behavior          struct {
		Kind, Text string
		Ms         int
		Value      json.RawMessage
	}
}

type adapter struct {
	reg     *tool.Registry
	timeout time.Duration
	mu      sync.Mutex
	runs    map[string][]string
}

func (a *adapter) fn(spec toolSpec) func(context.Context, json.RawMessage) (string, error) {
	b := spec.Behavior
	return func(ctx context.Context, args json.RawMessage) (string, error) {
		a.mu.Lock()
		a.runs[spec.Name] = append(a.runs[spec.Name], string(args))
		a.mu.Unlock()
		switch b.Kind {
		case "echo":
			return string(args), nil
		case "reply":
			return b.Text, nil
		case "fail":
			return "", errors.New(b.Text)
		case "panic":
			var s string
			if json.Unmarshal(b.Value, &s) == nil {
				panic(s)
			}
			panic(string(b.Value)) // any other value, as compact JSON
		case "sleep":
			select {
			case <-time.After(time.Duration(b.Ms) * time.Millisecond):
				return b.Text, nil
			case <-ctx.Done():
				return "", ctx.Err()
			}
		}
		<-ctx.Done() // hang: until the call is cancelled
		return "", ctx.Err()
	}
}

func refusal(err error) map[string]any {
	if err != nil {
		return map[string]any{"ok": false, "error": err.Error()}
	}
	return map[string]any{"ok": true}
}

func (a *adapter) handle(req request) map[string]any {
	switch req.Cmd {
	case "start":
		return map[string]any{"ready": true, "version": 1, "profiles": []string{"ag02"}, "capabilities": []string{"validate", "registry"},
			"implementation": map[string]string{"name": "my-tool-package", "language": "go", "version": "0.0.0"}}
	case "compile":
		_, err := tool.Compile(json.RawMessage(req.Schema))
		return refusal(err)
	case "validate":
		s, err := tool.Compile(json.RawMessage(req.Schema))
		if err != nil {
			return refusal(err)
		}
		errs := []map[string]string{}
		for _, e := range s.ValidateJSON([]byte(req.Instance)) {
			errs = append(errs, map[string]string{"path": e.Path, "message": e.Msg})
		}
		return map[string]any{"ok": true, "errors": errs}
	case "registry":
		a.reg, a.timeout = tool.NewRegistry(), time.Duration(req.Timeout)*time.Millisecond
		return map[string]any{"ok": true}
	case "register":
		schema := ""
		if req.Tool.Parameters != nil {
			schema = *req.Tool.Parameters
		}
		return refusal(a.reg.Register(tool.New(req.Tool.Name, req.Tool.Description, schema, a.fn(req.Tool))))
	case "names":
		return map[string]any{"names": a.reg.Names()}
	case "definitions":
		return map[string]any{"definitions": a.reg.Definitions()} // ADJUST if ToolDef has no json tags name/description/parameters
	case "call":
		ctx, cancel := context.Background(), context.CancelFunc(func() {})
		if a.timeout > 0 {
			ctx, cancel = context.WithTimeout(ctx, a.timeout)
		}
		defer cancel()
		a.mu.Lock()
		a.runs = map[string][]string{}
		a.mu.Unlock()
		c := req.Call
		res := a.reg.Call(ctx, types.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments}) // ADJUST to your ToolCall's fields
		a.mu.Lock()
		defer a.mu.Unlock()
		return map[string]any{"result": map[string]any{"callId": res.CallID, "name": res.Name, "content": res.Content, "isError": res.IsError},
			"message": res.Message(), "runs": a.runs} // ADJUST if Message has no json tags role/tool_call_id/content
	case "stop":
		return map[string]any{"ok": true}
	}
	return map[string]any{"errored": true, "message": fmt.Sprintf("unknown command %q", req.Cmd)}
}

func main() {
	a := &adapter{reg: tool.NewRegistry(), runs: map[string][]string{}}
	in, out := bufio.NewReaderSize(os.Stdin, 1<<20), bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	for {
		line, err := in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var req request
			var reply map[string]any
			if jerr := json.Unmarshal(line, &req); jerr != nil {
				reply = map[string]any{"errored": true, "message": "the request is not JSON: " + jerr.Error()}
			} else {
				reply = a.handle(req)
			}
			reply["seq"] = req.Seq // null when unreadable
			if err := enc.Encode(reply); err != nil {
				fmt.Fprintln(os.Stderr, "adapter:", err)
			}
			out.Flush()
			if req.Cmd == "stop" {
				return
			}
		}
		if err != nil { // end of input: the harness is gone
			return
		}
	}
}
