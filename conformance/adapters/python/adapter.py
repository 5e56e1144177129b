#!/usr/bin/env python3
"""A stdio adapter for tool-conformance (conformance/PROTOCOL.md, version 1).

    python3 adapter.py path/to/your_module.py      (or an importable module name)

It reads one JSON request a line on stdin and writes one JSON reply a line on stdout; logs go
to stderr, and so does whatever your module prints (print() is safe: it shows in the report).
Your module provides this small interface (the seed's Go API, in Python):

    compile(schema_text) -> schema                    raise any exception to refuse; str(e) is the error
    schema.validate_json(text) -> [error, ...]        each with .path ("$.tags[1]") and .message
    new_registry(timeout_ms=None) -> registry         a fresh, empty registry
    new_tool(name, description, schema_text_or_None, fn) -> tool
    registry.register(tool)                           raise to refuse; str(e) is the error
    registry.names() -> [str]
    registry.definitions() -> [{"name", "description", "parameters"}]   parameters as a JSON value
    registry.call(call_id, name, arguments) -> result .call_id .name .content .is_error .message()
    ToolError                                         what a tool raises to fail on purpose
    NAME, VERSION, PROFILES                           optional: for the report; PROFILES default ["ag02"]

A tool function is fn(arguments: str, cancel: threading.Event) -> str; the registry sets
`cancel` when the call times out. Standard library only; Python 3.8+.

What your module raises is its answer. compile and register refuse by raising, except for the
CRASHES below (a bug, never a refusal); anything raised by validate_json, names, definitions or
call is a crash. A crash is replied {"threw": "Type: message"}: the row fails, it is not errored.
"""

import importlib
import importlib.util
import json
import os
import sys
import threading

PROTOCOL_VERSION = 1
sys.dont_write_bytecode = True  # leave no __pycache__ beside the implementation
# What compile or register raise when they crash rather than refuse (json.loads on deep nesting, a typo).
CRASHES = (RecursionError, MemoryError, NameError, AttributeError)


def threw(error):
    """The reply to a crash inside the implementation: its type and message, one line, no traceback."""
    return {"threw": ("%s: %s" % (type(error).__name__, error)).replace("\n", " ")}


def protocol_stream():
    """The protocol's stream, kept apart: a copy of fd 1 takes the replies, then fd 1 and sys.stdout
    go to stderr, so that what the implementation prints (at import, in a call, in a thread, in a
    child process) is its output in the report, never a line of the protocol."""
    sys.stdout.flush()
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8", newline="\n")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return replies


def load(spec):
    if spec.endswith(".py") or os.sep in spec:
        path = os.path.abspath(spec)
        sys.path.insert(0, os.path.dirname(path))
        module_spec = importlib.util.spec_from_file_location(os.path.splitext(os.path.basename(path))[0], path)
        module = importlib.util.module_from_spec(module_spec)
        sys.modules[module_spec.name] = module  # dataclasses look their module up while the class is built
        module_spec.loader.exec_module(module)
        return module
    return importlib.import_module(spec)


class Adapter:
    def __init__(self, impl):
        self.impl = impl
        self.registry = impl.new_registry()
        self.runs = {}
        self.runs_lock = threading.Lock()  # tools may run on several threads at once (concurrently)

    def tool_fn(self, name, behavior):
        impl, kind = self.impl, behavior["kind"]

        def fn(arguments, cancel):
            with self.runs_lock:
                self.runs.setdefault(name, []).append(arguments)
            if kind == "echo":
                return arguments
            if kind == "reply":
                return behavior["text"]
            if kind == "fail":
                raise impl.ToolError(behavior["text"])
            if kind == "panic":
                value = behavior["value"]
                raise RuntimeError(value if isinstance(value, str) else json.dumps(value, separators=(",", ":")))
            if kind == "sleep":
                if cancel.wait(behavior["ms"] / 1000):
                    raise RuntimeError("cancelled")
                return behavior["text"]
            cancel.wait()  # hang: until the registry gives up on it
            raise RuntimeError("cancelled")

        return fn

    def handle(self, req):
        cmd, impl = req.get("cmd"), self.impl
        if cmd == "start":
            return {"ready": True, "version": PROTOCOL_VERSION,
                    "implementation": {"name": getattr(impl, "NAME", impl.__name__), "language": "python",
                                       "version": str(getattr(impl, "VERSION", ""))},
                    "profiles": list(getattr(impl, "PROFILES", ["ag02"])),
                    "capabilities": ["validate", "registry", "concurrency"]}
        if cmd in ("compile", "validate"):
            try:
                schema = impl.compile(req["schema"])
            except CRASHES as error:
                return threw(error)
            except Exception as error:  # the schema is refused
                return {"ok": False, "error": str(error)}
            if cmd == "compile":
                return {"ok": True}
            try:
                errors = schema.validate_json(req["instance"])
                return {"ok": True, "errors": [{"path": e.path, "message": e.message} for e in errors]}
            except Exception as error:
                return threw(error)
        if cmd == "registry":
            self.registry = impl.new_registry(req.get("timeoutMs"))
            return {"ok": True}
        if cmd in ("register", "names", "definitions"):
            return self.registry_request(req)
        if cmd == "call":
            self.runs = {}
            return dict(self.registry_request(req), runs=self.runs)
        if cmd == "concurrently":
            # one thread per request, all released at once by a barrier, as a parallel agent loop would
            self.runs = {}
            requests = req["requests"]
            replies = [None] * len(requests)
            barrier = threading.Barrier(len(requests))

            def run(i):
                barrier.wait()
                try:
                    replies[i] = self.registry_request(requests[i])
                except Exception as error:  # a bug in the adapter: the whole request is errored
                    replies[i] = {"errored": True, "message": "%s: %s" % (type(error).__name__, error)}

            threads = [threading.Thread(target=run, args=(i,)) for i in range(len(requests))]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            broken = [r for r in replies if r.get("errored")]
            if broken:
                return broken[0]
            return {"replies": replies, "runs": self.runs}
        if cmd == "stop":
            return {"ok": True}
        return {"errored": True, "message": "unknown command %s" % json.dumps(cmd)}

    def registry_request(self, req):
        """A register, names, definitions or call request's reply, without runs."""
        cmd, impl = req["cmd"], self.impl
        if cmd == "register":
            tool = req["tool"]
            fn = self.tool_fn(tool["name"], tool["behavior"])
            try:
                self.registry.register(impl.new_tool(tool["name"], tool["description"], tool["parameters"], fn))
                return {"ok": True}
            except CRASHES as error:
                return threw(error)
            except Exception as error:  # the tool is refused
                return {"ok": False, "error": str(error)}
        call = req["call"] if cmd == "call" else None
        try:
            if cmd == "names":
                return {"names": list(self.registry.names())}
            if cmd == "definitions":
                return {"definitions": list(self.registry.definitions())}
            result = self.registry.call(call["id"], call["name"], call["arguments"])
            return {"result": {"callId": result.call_id, "name": result.name, "content": result.content,
                               "isError": result.is_error},
                    "message": result.message()}
        except Exception as error:  # names, definitions and call never raise
            return threw(error)


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: adapter.py IMPLEMENTATION (a .py file or a module name)\n")
        return 2
    replies = protocol_stream()  # before the import: a print at import time is output, not a reply
    adapter = Adapter(load(sys.argv[1]))
    stdin = open(sys.stdin.fileno(), "r", encoding="utf-8", newline="\n", closefd=False)
    while True:
        line = stdin.readline()
        if not line:
            return 0  # end of input: the harness is gone
        if not line.strip():
            continue
        seq, cmd = None, None
        try:
            req = json.loads(line)
            seq, cmd = req.get("seq"), req.get("cmd")
            reply = adapter.handle(req)
        except Exception as error:  # a bug in the adapter, outside the module's calls: the row is errored, we go on
            reply = {"errored": True, "message": "%s: %s" % (type(error).__name__, error)}
        replies.write(json.dumps(dict({"seq": seq}, **reply)) + "\n")
        replies.flush()
        if cmd == "stop":
            return 0


if __name__ == "__main__":
    sys.exit(main())
