#!/usr/bin/env python3
"""A stdio adapter for tool-conformance's `lesson` profile (conformance/PROTOCOL.md, version 1).

    python3 adapter.py path/to/your_registry.py      (or an importable module name)

It reads one JSON request a line on stdin and writes one JSON reply a line on stdout; logs go to
stderr, and so does whatever your module prints (print() is safe: it shows in the report).
Your module provides the lesson's API (seed 001, "Tool registry and schema validation"):

    ToolRegistry()                                     a fresh, empty registry
    registry.register(name, schema, handler, **opts)   opts: description, idempotent, timeout_ms, override;
                                                       raises to refuse (a duplicate, a bad name, a bad schema)
    registry.get(name) -> record                       .name .description .schema .handler .idempotent
                                                       .timeout_ms; raises when there is no such tool
    registry.validate(name, args) -> [error, ...]      args parsed JSON; each error has .path (a JSON
                                                       Pointer, root "") .message .expected_type (or None)
    registry.names() -> [str]                          registration order
    NAME, VERSION                                      optional: for the report

`call` is not the lesson's (its dispatcher is lesson 23): the adapter answers it with a minimal
dispatcher of its own on top of get, validate and the handler. Lines a student adapts to their own
names are marked `# ADJUST:`. Standard library only, Python 3.8+.

What your module raises is its answer. register, get and validate refuse by raising, except for the
CRASHES below (a bug, never a refusal); anything names raises is a crash. A crash is replied
{"threw": "Type: message"}: the row fails, it is not errored.
"""

import asyncio
import importlib
import importlib.util
import inspect
import json
import os
import sys
import threading
import time

PROTOCOL_VERSION = 1
sys.dont_write_bytecode = True  # leave no __pycache__ beside the implementation

# A valid name to register a bare schema under (the `validate {schema}` and `compile` requests):
# the lesson's only validation entry point is registry.validate(name, args).
SCRATCH_NAME = "conformance.scratch"  # ADJUST: any name your register() accepts
# The schema of a tool registered with `parameters: null` (the protocol: no schema means an object).
NO_SCHEMA = {"type": "object"}  # ADJUST: what your registry means by "no schema", if it has one
# What register, get or validate raise when they crash rather than refuse (deep recursion, a typo).
CRASHES = (RecursionError, MemoryError, NameError, AttributeError)  # ADJUST: if your refusals are among them


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


class ToolFailed(Exception):
    """What a `fail` tool raises."""


class NoDispatcher(Exception):
    """A behavior this adapter cannot run without the lesson-23 dispatcher (the row is errored)."""


async def _awaited(awaitable):
    return await awaitable


def _refuse_constant(name):
    raise ValueError("%s is not JSON" % name)


def parse_json(text):
    """Strict JSON: Python's json also reads NaN, Infinity and -Infinity, which JSON does not have.
    Text nested deeper than json.loads can go is refused too (a ValueError, not its RecursionError)."""
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:
        raise ValueError("nested too deep to parse") from None


def error_text(error):
    """What an exception says, one line (KeyError's str() is a repr: prefer its argument)."""
    text = error.args[0] if isinstance(error, KeyError) and error.args and isinstance(error.args[0], str) else str(error)
    return ("%s: %s" % (type(error).__name__, text)).replace("\n", " ")


def threw(error):
    """The reply to a crash inside the implementation: its type and message, never a traceback."""
    return {"threw": error_text(error)}


class Adapter:
    def __init__(self, impl):
        self.impl = impl
        self.registry = impl.ToolRegistry()  # ADJUST: how your registry is built
        self.runs = {}
        self.runs_lock = threading.Lock()
        self.arguments = None  # the argument text of the call in flight

    def call(self, call):
        """The protocol's call, for the smoke check and seed 000's rows. The lesson's registry has no
        call (its dispatcher is lesson 23): this is a minimal one on top of get, validate and the
        handler. Unknown tool, malformed or invalid arguments and a failing handler are error results."""
        self.runs = {}
        call_id, name, text = call["id"], call["name"], call["arguments"]

        def result(content, is_error):
            return {"result": {"callId": call_id, "name": name, "content": content, "isError": is_error},
                    "message": {"role": "tool", "tool_call_id": call_id,
                                "content": ("error: " + content) if is_error else content},
                    "runs": self.runs}

        try:
            record = self.registry.get(name)  # ADJUST: your get
        except CRASHES as error:
            return dict(threw(error), runs=self.runs)
        except Exception:
            return result("unknown tool %s" % json.dumps(name), True)
        reply = self.validate(self.registry, name, text)
        if "threw" in reply:
            return dict(reply, runs=self.runs)
        if not reply["ok"]:
            return result(reply["error"], True)
        if reply["errors"]:
            return result("invalid arguments: " + "; ".join("%s: %s" % (e["path"] or "(root)", e["message"])
                                                            for e in reply["errors"]), True)
        self.arguments = text
        try:
            out = record.handler(parse_json(text))  # ADJUST: how your dispatcher calls a handler
            if inspect.isawaitable(out):
                out = asyncio.run(_awaited(out))
        except NoDispatcher:
            raise
        except Exception as error:
            return result(str(error), True)
        finally:
            self.arguments = None
        return result(out if isinstance(out, str) else json.dumps(out, separators=(",", ":")), False)

    def handler(self, name, behavior, kind):
        """A sync or async handler for the tool; the lesson rows never call it. If called, it records
        the argument text and answers the behavior's text (echo: the argument text, byte for byte)."""
        def answer(args):
            text = self.arguments if self.arguments is not None else json.dumps(args, separators=(",", ":"))
            with self.runs_lock:
                self.runs.setdefault(name, []).append(text)
            kind = behavior.get("kind")
            if kind == "echo":
                return text
            if kind == "panic":
                value = behavior.get("value")
                raise RuntimeError(value if isinstance(value, str) else json.dumps(value, separators=(",", ":")))
            if kind == "fail":
                raise ToolFailed(behavior.get("text", ""))
            if kind == "sleep":
                time.sleep(behavior.get("ms", 0) / 1000)
            if kind == "hang":
                raise NoDispatcher("a hanging tool needs the dispatcher's timeout (lesson 23), which this registry does not have")
            return behavior.get("text", "")

        if kind == "async":
            async def async_handler(args=None, **kwargs):  # ADJUST: your handlers' signature
                return answer(kwargs if args is None else args)
            return async_handler

        def sync_handler(args=None, **kwargs):  # ADJUST: your handlers' signature
            return answer(kwargs if args is None else args)
        return sync_handler

    def register(self, registry, tool, override):
        """registry.register(...) for a protocol tool; raises what register raises."""
        schema = NO_SCHEMA if tool["parameters"] is None else parse_json(tool["parameters"])
        opts = {"description": tool["description"]}
        # Only what the request carries: a student's register may not take every option.
        if "idempotent" in tool:
            opts["idempotent"] = tool["idempotent"]  # ADJUST: your option's name
        if tool.get("timeoutMs") is not None:
            opts["timeout_ms"] = tool["timeoutMs"]  # ADJUST: your option's name
        if override is not None:
            opts["override"] = override  # ADJUST: your option's name
        handler = self.handler(tool["name"], tool.get("behavior", {}), tool.get("handler", "sync"))
        registry.register(tool["name"], schema, handler, **opts)  # ADJUST: your register's signature

    def validate(self, registry, name, instance):
        """validate(name, args) as a protocol reply. The lesson's validate takes parsed arguments:
        argument text that is not JSON is answered here as one error at the root (what a dispatcher
        built on the lesson tells the model), without calling validate."""
        try:
            args = parse_json(instance)
        except ValueError as error:
            return {"ok": True, "errors": [{"path": "", "message": "arguments are not valid JSON: %s" % error,
                                            "expectedType": None}]}
        try:
            errors = registry.validate(name, args)  # ADJUST: your validate
        except CRASHES as error:
            return threw(error)
        except Exception as error:  # no such tool
            return {"ok": False, "error": error_text(error)}
        return {"ok": True, "errors": [{"path": e.path,  # ADJUST: your error's fields
                                        "message": e.message,
                                        "expectedType": getattr(e, "expected_type", None)}
                                       for e in (errors or [])]}  # ADJUST: if your Ok is not an empty list

    def scratch(self, schema_text):
        """A fresh registry holding the bare schema under SCRATCH_NAME; raises if it is refused."""
        registry = self.impl.ToolRegistry()  # ADJUST: how your registry is built
        self.register(registry, {"name": SCRATCH_NAME, "description": "", "parameters": schema_text,
                                 "behavior": {"kind": "reply", "text": ""}}, None)
        return registry

    def handle(self, req):
        cmd, impl = req.get("cmd"), self.impl
        if cmd == "start":
            return {"ready": True, "version": PROTOCOL_VERSION,
                    "implementation": {"name": getattr(impl, "NAME", impl.__name__), "language": "python",
                                       "version": str(getattr(impl, "VERSION", ""))},
                    "profiles": ["lesson", "pointer"],  # pointer: the lesson profile's old name
                    "capabilities": ["validate", "registry", "records"]}
        if cmd == "compile" or cmd == "validate" and "tool" not in req:
            try:
                registry = self.scratch(req["schema"])
            except CRASHES as error:
                return threw(error)
            except Exception as error:  # the schema was refused
                return {"ok": False, "error": error_text(error)}
            return {"ok": True} if cmd == "compile" else self.validate(registry, SCRATCH_NAME, req["instance"])
        if cmd == "validate":
            return self.validate(self.registry, req["tool"], req["instance"])
        if cmd == "registry":
            self.registry = impl.ToolRegistry()  # ADJUST: how your registry is built (no registry-wide timeout)
            return {"ok": True}
        if cmd == "register":
            try:
                self.register(self.registry, req["tool"], req.get("override"))
                return {"ok": True}
            except CRASHES as error:
                return threw(error)
            except Exception as error:
                return {"ok": False, "error": error_text(error)}
        if cmd == "get":
            try:
                record = self.registry.get(req["name"])  # ADJUST: your get
            except CRASHES as error:
                return threw(error)
            except Exception as error:
                return {"found": False, "error": error_text(error)}
            return {"found": True, "record": self.record(record)}
        if cmd in ("names", "definitions"):
            try:
                names = list(self.registry.names())  # ADJUST: your names
                if cmd == "names":
                    return {"names": names}
                # The lesson has no definitions(): the records, in registration order
                return {"definitions": [{"name": r.name, "description": r.description, "parameters": r.schema}
                                        for r in (self.registry.get(n) for n in names)]}
            except Exception as error:  # names and get of a registered name never raise
                return threw(error)
        if cmd == "stop":
            return {"ok": True}
        if cmd == "call":
            return self.call(req["call"])
        # concurrently: no concurrency capability (the lesson's registry says nothing of threads)
        return {"errored": True, "message": "unknown command %s" % json.dumps(cmd)}

    @staticmethod
    def record(record):
        handler = record.handler  # ADJUST: your record's fields, here and below
        return {"name": record.name,
                "description": record.description,
                "schema": record.schema,
                "idempotent": record.idempotent,
                "timeoutMs": record.timeout_ms,
                "handler": "async" if inspect.iscoroutinefunction(handler) else "sync"}


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
            reply = {"errored": True, "message": error_text(error)}
        replies.write(json.dumps(dict({"seq": seq}, **reply)) + "\n")
        replies.flush()
        if cmd == "stop":
            return 0


if __name__ == "__main__":
    sys.exit(main())
