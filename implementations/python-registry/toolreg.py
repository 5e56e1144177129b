"""The ag.02 tool registry (seed 000, sections 2.3 and 4), written once for every Python validator
library scored here: python-jsonschema/registry.py and python-fastjsonschema/registry.py plug their
library in and reuse everything below. It is the glue a user reading the seed would write around a
validator library that has no registry of its own; it never validates anything itself.

A validator plugs in as a function compile(schema_text) -> schema, where schema.validate_json(text)
returns a list of ValidationError (path, message). compile refuses a schema by raising: SchemaError
(the library's own refusal, re-raised with its text), or whatever the library raises on a bad
schema (fastjsonschema lets re.error out on a bad pattern); the CRASHES below are a crash of the
library, never a refusal, and propagate as such.

Also here, because both libraries need them the same way:
- parse(): the JSON text of schemas and arguments, read with plain json.loads, as users do;
- the seed's wording of the four messages its worked example spells out (type, required,
  additionalProperties false, enum), built from each library's error data;
- check_subset(): the STRICT_SUBSET=1 switch (off by default), refusing keywords outside the subset.

Standard library only. Safe for concurrent use: one lock guards the tool table.
"""

import json
import os
import re
import threading

# The seed's name rule, ^[A-Za-z0-9_-]{1,64}$. Checked with re.fullmatch: Python's `$` would also
# match before a final "\n", which would let "get_weather\n" through.
NAME_PATTERN = "^[A-Za-z0-9_-]{1,64}$"
_NAME_RE = re.compile(r"[A-Za-z0-9_-]{1,64}")
# The seed: a missing schema means {"type":"object"}.
DEFAULT_PARAMETERS = '{"type":"object"}'
ERROR_PREFIX = "error: "


# What a library raises when it crashes rather than refuses: the adapter's and PROTOCOL.md's reading
# of a Python raise (conformance/adapters/python/adapter.py, CRASHES). Anything else a compile
# raises is its refusal of the schema (SchemaError, or the library's own type, e.g. re.error).
CRASHES = (RecursionError, MemoryError, NameError, AttributeError)


class ToolError(Exception):
    """What a tool raises to fail on purpose (Go's `return "", err`); anything else is a panic."""


class SchemaError(Exception):
    """A schema the validator library refuses (its own message), or text that is not JSON."""


class RegistryError(Exception):
    """A tool the registry refuses."""


class ValidationError:
    """One violation: the seed's ValidationError{Path, Msg}; str() is "Path: Msg"."""

    def __init__(self, path, message):
        self.path, self.message = path, message

    def __str__(self):
        return "%s: %s" % (self.path, self.message)


def sort_errors(errors):
    """The seed: "Errors are sorted by path, then message, so the same call always gets the same
    text." Libraries yield them in their own (schema keyword) order, so the glue sorts. Python
    compares str by code point, the seed's (Go's byte-on-UTF-8) order."""
    return sorted(errors, key=lambda e: (e.path, e.message))


# --- JSON text ------------------------------------------------------------------------------

def parse(text):
    """Plain json.loads, as the libraries' users call it, and what that implies:
    - numbers become int or float: 3.0 is a float (whether it is an "integer" is then the
      library's call), 1e2 is 100.0, 9007199254740993 stays an exact int, a literal's spelling is
      lost (an enum message shows 1.0 where the text said 1.00);
    - NaN, Infinity and -Infinity are accepted (not JSON), 1e400 becomes inf;
    - a duplicate key keeps its last value; lone surrogates (\\ud800) are accepted;
    - nesting is limited by Python's recursion limit: json.loads raises RecursionError (not a
      ValueError) on deep nesting, which the glue reports as malformed text rather than crash on
      the model's input (the seed: ValidateJSON answers every instance).
    Raises ValueError with the reason; the caller words it `invalid JSON: ...`."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("nesting too deep")
    # json.JSONDecodeError is a ValueError: it propagates with json's own message.


def parse_instance(text):
    """An argument text for a library that validates parsed values: (value, None), or (None, the
    one error at the root) when the text does not parse, the library never being called."""
    try:
        return parse(text), None
    except ValueError as error:
        return None, [ValidationError("$", "invalid JSON: %s" % error)]


def dump(value):
    """Compact JSON for messages (the seed writes ["c","f"]); non-ASCII kept as is."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


# --- the seed's four messages, from a library's error data ------------------------------------
# The seed's worked example spells these four out; they are part of the contract, so the glue
# words them the seed's way from the data each library attaches to its error. Every other
# message is the library's own text.

def json_type(value):
    """The JSON type of a parsed value, for "got ...": never "integer" (the seed's wording)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def type_message(expected, value):
    """`expected integer, got string`; a list of types is joined by " or "."""
    names = expected if isinstance(expected, list) else [expected]
    return "expected %s, got %s" % (" or ".join(str(n) for n in names), json_type(value))


def required_message(name):
    return "missing required property %s" % dump(name)


def unexpected_message(name):
    return "unexpected property %s" % dump(name)


def enum_message(value, allowed):
    return "%s is not one of %s" % (dump(value), dump(allowed))


def extra_properties(instance, schema):
    """The properties additionalProperties applies to, as both libraries compute them: not named
    in `properties` and matching no `patternProperties` regex (re.search, both libraries' way)."""
    properties = schema.get("properties", {})
    patterns = schema.get("patternProperties", {})
    return [name for name in instance
            if name not in properties and not any(re.search(p, name) for p in patterns)]


# --- the switch: STRICT_SUBSET=1 -------------------------------------------------------------
# Off by default, so the score shows the library as it is. With STRICT_SUBSET=1, compile first
# refuses any keyword outside the seed's subset (section 2.2), the check a user of a full JSON
# Schema library adds to get the seed's "no half-enforced schema". Only keywords are checked:
# everything else (shapes, types, patterns) stays the library's.

STRICT_SUBSET = os.environ.get("STRICT_SUBSET") == "1"
SUBSET_KEYWORDS = {"type", "enum", "const", "properties", "required", "additionalProperties", "items",
                   "minItems", "maxItems", "minLength", "maxLength", "pattern", "minimum", "maximum",
                   "anyOf"}
ANNOTATIONS = {"title", "description", "default", "examples", "$schema"}


def _pointer(at, step):
    return at + "/" + str(step).replace("~", "~0").replace("/", "~1")


def check_subset(schema, at="#"):
    """Raises SchemaError for the first keyword outside the subset (keywords in code-point order,
    depth first). Walks only the subset's subschemas: properties values, items, an object
    additionalProperties, anyOf members; enum, const and the annotations hold data, not schemas."""
    if not isinstance(schema, dict):
        return  # a non-object schema is the library's to judge
    for key in sorted(schema):
        if key not in SUBSET_KEYWORDS and key not in ANNOTATIONS:
            raise SchemaError("unsupported keyword %s at %s" % (dump(key), at))
    for key in sorted(schema):
        value = schema[key]
        if key == "properties" and isinstance(value, dict):
            for name in value:
                check_subset(value[name], _pointer(_pointer(at, key), name))
        elif key in ("items", "additionalProperties"):
            check_subset(value, _pointer(at, key))
        elif key == "anyOf" and isinstance(value, list):
            for i, sub in enumerate(value):
                check_subset(sub, _pointer(_pointer(at, key), i))


# --- tools and the registry ------------------------------------------------------------------

class Tool:
    """tool.New: a definition and fn(arguments: str, cancel: threading.Event) -> str."""

    def __init__(self, name, description, schema_text, fn):
        self.name, self.description, self.schema_text, self.fn = name, description, schema_text, fn


def new_tool(name, description, schema_text, fn):
    return Tool(name, description, schema_text, fn)


class Result:
    """The seed's Result: content without the prefix; message() adds `error: ` on failure."""

    def __init__(self, call_id, name, content, is_error):
        self.call_id, self.name, self.content, self.is_error = call_id, name, content, is_error

    def message(self):
        content = ERROR_PREFIX + self.content if self.is_error else self.content
        return {"role": "tool", "tool_call_id": self.call_id, "content": content}


class Registry:
    """The tools an agent can call, validated by the plugged-in library. call() never raises."""

    def __init__(self, compile, timeout_ms=None):
        self._compile = compile
        # The seed's Registry has no timeout (its ctx is the caller's), nor do these libraries:
        # without timeoutMs, a call waits for its tool. With it, the call is cut off and the
        # tool's cancel event set, as Go cancels the call's context.
        self._timeout = timeout_ms / 1000 if timeout_ms else None
        self._entries = {}
        self._lock = threading.Lock()

    def register(self, tool):
        name = tool.name
        if not isinstance(name, str) or not _NAME_RE.fullmatch(name):
            raise RegistryError("invalid tool name %s: must match %s" % (dump(str(name)), NAME_PATTERN))
        text = tool.schema_text
        # A missing schema means {"type":"object"}: no schema at all, or text that is blank or
        # the JSON null (some providers send "" or "null" for a tool without parameters).
        if text is None or text.strip() in ("", "null"):
            text = DEFAULT_PARAMETERS
        try:
            schema = self._compile(text)
        except CRASHES:  # a crash in the library propagates as a crash, never a refusal
            raise
        except Exception as error:  # the library's refusal, whatever type it refuses with
            raise RegistryError("tool %s: invalid parameters: %s" % (dump(name), error))
        # The compiled schema compiled, so the text parses; kept parsed for Definitions().
        parameters = parse(text)
        # The seed: Parameters is a JSON Schema whose top-level type is object.
        if not isinstance(parameters, dict) or parameters.get("type") != "object":
            raise RegistryError('tool %s: parameters must have "type": "object"' % dump(name))
        with self._lock:
            if name in self._entries:  # a duplicate is refused, the first is kept
                raise RegistryError("tool %s is already registered" % dump(name))
            self._entries[name] = (tool, schema, parameters)

    def names(self):
        with self._lock:
            return sorted(self._entries)

    def definitions(self):
        """Sorted by name (the prompt's bytes are the same every run), parameters as registered."""
        with self._lock:
            return [{"name": name, "description": tool.description or "", "parameters": parameters}
                    for name, (tool, _, parameters) in sorted(self._entries.items())]

    def call(self, call_id, name, arguments):
        with self._lock:
            entry = self._entries.get(name)
            available = sorted(self._entries)
        if entry is None:
            listed = ", ".join(available) if available else "none"
            return Result(call_id, name, "unknown tool %s (available: %s)" % (dump(name), listed), True)
        tool, schema, _ = entry
        # Empty arguments mean {} (the seed); whitespace only too (the harness's reading).
        if not isinstance(arguments, str) or not arguments.strip():
            arguments = "{}"
        try:
            errors = sort_errors(schema.validate_json(arguments))
        except Exception as error:  # the library raised on the arguments: Call still never raises
            return Result(call_id, name, "cannot validate arguments for %s: %s: %s"
                          % (name, type(error).__name__, error), True)
        if errors:
            lines = ["invalid arguments for %s:" % name] + [str(e) for e in errors]
            return Result(call_id, name, "\n".join(lines), True)
        return self._run(call_id, name, tool, arguments)

    def _run(self, call_id, name, tool, arguments):
        """Runs the tool once, with the argument text unchanged, on a thread of its own (so a
        timeout can give up on it); a panic is recovered and reported without its traceback."""
        cancel = threading.Event()
        outcome = {}

        def run():
            try:
                outcome["ok"] = str(tool.fn(arguments, cancel))
            except ToolError as error:
                outcome["failed"] = str(error)
            except BaseException as error:  # the recover around Execute
                outcome["panicked"] = str(error) or type(error).__name__

        worker = threading.Thread(target=run, daemon=True)
        worker.start()
        worker.join(self._timeout)
        cancel.set()
        if "ok" in outcome:
            return Result(call_id, name, outcome["ok"], False)
        if "failed" in outcome:
            return Result(call_id, name, "tool %s failed: %s" % (name, outcome["failed"]), True)
        if "panicked" in outcome:
            return Result(call_id, name, "tool %s panicked: %s" % (name, outcome["panicked"]), True)
        return Result(call_id, name, "tool %s timed out after %dms" % (name, round(self._timeout * 1000)), True)
