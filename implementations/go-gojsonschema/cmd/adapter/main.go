// Command adapter serves a tool package (the ag.02 Go API) over the tool-conformance stdio
// protocol (conformance/PROTOCOL.md): a JSON request a line on stdin, a reply a line on stdout.
// Build it inside your module (README.md); the lines to fit to your packages are marked ADJUST.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"tinyllm/agent/tool"  // ADJUST: the import path of your tool package
	"tinyllm/agent/types" // ADJUST: the import path of your ag.01 types package
)

type request struct {
	Seq                   *int64
	Cmd, Schema, Instance string
	Timeout               int `json:"timeoutMs"`
	Tool                  toolSpec
	Call                  struct{ ID, Name, Arguments string }
	Requests              []request // concurrently
}

type toolSpec struct {
	Name, Description, Parameters string // Parameters: "" when null
	Behavior                      struct {
		Kind, Text string
		Ms         int
		Value      json.RawMessage
	}
}

type reply = map[string]any

type adapter struct {
	reg     *tool.Registry
	timeout time.Duration
	mu      sync.Mutex          // guards runs: tools may run in several goroutines at once
	runs    map[string][]string // tool name: the argument texts it ran with, since takeRuns
}

// fn builds a tool function from its behavior (PROTOCOL.md, Behaviors).
func (a *adapter) fn(t toolSpec) func(context.Context, json.RawMessage) (string, error) {
	b := t.Behavior
	return func(ctx context.Context, args json.RawMessage) (string, error) {
		a.mu.Lock()
		a.runs[t.Name] = append(a.runs[t.Name], string(args))
		a.mu.Unlock()
		switch b.Kind {
		case "echo":
			return string(args), nil
		case "reply":
			return b.Text, nil
		case "fail":
			return "", errors.New(b.Text)
		case "panic":
			if s := ""; json.Unmarshal(b.Value, &s) == nil {
				panic(s)
			}
			panic(string(b.Value)) // any other value, as its JSON text
		case "sleep":
			select {
			case <-time.After(time.Duration(b.Ms) * time.Millisecond):
				return b.Text, nil
			case <-ctx.Done():
			}
		}
		<-ctx.Done() // hang, or a sleep cut short: until the call is cancelled
		return "", ctx.Err()
	}
}

func (a *adapter) takeRuns() (runs map[string][]string) {
	a.mu.Lock()
	runs, a.runs = a.runs, map[string][]string{}
	a.mu.Unlock()
	return runs
}

func refusal(err error) reply {
	if err != nil {
		return reply{"ok": false, "error": err.Error()}
	}
	return reply{"ok": true}
}

// guard makes f's calls into your implementation: a panic in them is replied as threw, an answer
// (a wrong one: the spec's functions never panic on the model's input), not an adapter failure.
func guard(f func() reply) (rep reply) {
	defer func() {
		if p := recover(); p != nil {
			rep = reply{"threw": fmt.Sprintf("panic: %v", p)}
		}
	}()
	return f()
}

// call runs one call, with the registry's timeout as its context's deadline.
func (a *adapter) call(c types.ToolCall) reply {
	ctx, cancel := context.Background(), context.CancelFunc(func() {})
	if a.timeout > 0 { // the registry request's timeoutMs: a deadline for each call
		ctx, cancel = context.WithTimeout(ctx, a.timeout)
	}
	defer cancel()
	return guard(func() reply {
		res := a.reg.Call(ctx, c)
		m := res.Message()
		return reply{"result": reply{"callId": res.CallID, "name": res.Name, "content": res.Content, "isError": res.IsError},
			"message": reply{"role": m.Role, "tool_call_id": m.ToolCallID, "content": m.Content}} // ADJUST: the fields of your types.Message
	})
}

// handle answers one request (a panic in the adapter itself: errored); in a batch, the batch keeps the runs.
func (a *adapter) handle(req request, batch bool) (rep reply) {
	defer func() {
		if p := recover(); p != nil {
			rep = reply{"errored": true, "message": fmt.Sprintf("adapter panicked on %q: %v", req.Cmd, p)}
		}
	}()
	switch req.Cmd {
	case "start":
		return reply{"ready": true, "version": 1, "profiles": []string{"ag02"}, "capabilities": []string{"validate", "registry", "concurrency"},
			"implementation": reply{"name": "gojsonschema", "language": "go", "version": tool.LibraryVersion}} // ADJUST: your package's name and version (the library's; build.sh sets LibraryVersion from the Debian package)
	case "compile", "validate":
		return guard(func() reply {
			s, err := tool.Compile(json.RawMessage(req.Schema))
			if err != nil || req.Cmd == "compile" {
				return refusal(err)
			}
			errs := []reply{}
			for _, e := range s.ValidateJSON([]byte(req.Instance)) {
				errs = append(errs, reply{"path": e.Path, "message": e.Msg})
			}
			return reply{"ok": true, "errors": errs}
		})
	case "registry":
		a.reg, a.timeout = tool.NewRegistry(), time.Duration(req.Timeout)*time.Millisecond
		return reply{"ok": true}
	case "register":
		t := req.Tool
		return guard(func() reply { return refusal(a.reg.Register(tool.New(t.Name, t.Description, t.Parameters, a.fn(t)))) })
	case "names":
		return guard(func() reply { return reply{"names": append([]string{}, a.reg.Names()...)} }) // never null
	case "definitions": // ADJUST: types.ToolDef needs the json tags name, description, parameters (a JSON object), else map each by hand
		return guard(func() reply { return reply{"definitions": append([]types.ToolDef{}, a.reg.Definitions()...)} })
	case "call":
		rep = a.call(types.ToolCall{ID: req.Call.ID, Name: req.Call.Name, Arguments: req.Call.Arguments}) // ADJUST: the fields of your types.ToolCall
		if !batch {
			rep["runs"] = a.takeRuns() // the tools run during this call; a new record for the next
		}
		return rep
	case "concurrently":
		return a.concurrently(req.Requests)
	case "stop":
		return reply{"ok": true}
	}
	return reply{"errored": true, "message": fmt.Sprintf("unknown command %q", req.Cmd)}
}

// concurrently runs each request in a goroutine of its own, all released at once; runs: the batch's.
func (a *adapter) concurrently(reqs []request) reply {
	a.takeRuns()
	replies, start, wg := make([]reply, len(reqs)), make(chan struct{}), sync.WaitGroup{}
	for i, r := range reqs {
		wg.Add(1)
		go func(i int, r request) {
			defer wg.Done()
			<-start
			replies[i] = a.handle(r, true)
		}(i, r)
	}
	close(start)
	wg.Wait()
	for _, r := range replies {
		if r["errored"] != nil {
			return r
		}
	}
	return reply{"replies": replies, "runs": a.takeRuns()}
}

func main() {
	// The replies keep the real stdout; what the implementation prints to os.Stdout (fmt.Println)
	// goes to stderr from here on: it is its output in the report, never a line of the protocol.
	replies := os.Stdout
	os.Stdout = os.Stderr
	a := &adapter{reg: tool.NewRegistry(), runs: map[string][]string{}}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<30)
	for in.Scan() { // until stdin ends
		var req request
		rep := reply{"errored": true, "message": "the request is not a JSON object"}
		if json.Unmarshal(in.Bytes(), &req) == nil {
			rep = a.handle(req, false)
		}
		rep["seq"] = req.Seq // null when unreadable
		line, err := json.Marshal(rep)
		if err != nil {
			line, _ = json.Marshal(reply{"seq": req.Seq, "errored": true, "message": err.Error()})
		}
		replies.Write(append(line, '\n'))
		if req.Cmd == "stop" {
			return
		}
	}
}
