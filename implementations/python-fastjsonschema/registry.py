"""The ag.02 contract on fastjsonschema (Debian's python3-fastjsonschema, 2.16.x), used the way its
users use it: fastjsonschema.compile(schema) once, then the compiled function on each value, which
raises JsonSchemaValueException at the first violation (the library reports one error only: so
does this validator); JsonSchemaDefinitionException is its refusal of a schema at compile.

The library implements drafts 04, 06 and 07, chosen by "$schema" and draft-07 by default: the
seed's 2020-12 schemas run as draft-07 (the subset's keywords mean the same in both).

Only the validator is here; the registry (names, duplicates, sorting, the `error: ` result,
panics, timeouts, empty arguments) is the shared ../python-registry/toolreg.py.

    /usr/bin/python3 ../conformance/adapters/python/adapter.py python-fastjsonschema/registry.py
"""

import os
import sys

import fastjsonschema
from fastjsonschema import JsonSchemaDefinitionException, JsonSchemaValueException

# The shared registry lives in the sibling folder python-registry/ (written once for both Python
# validator libraries); this file's folder's parent is put on sys.path to import it by path.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python-registry"))
import toolreg  # noqa: E402
from toolreg import ToolError, ValidationError  # noqa: E402,F401  (ToolError: the adapter's interface)

NAME = "fastjsonschema"
# The library's own version constant, read at run time.
VERSION = fastjsonschema.VERSION


def render(name):
    """The error's location from its `name`, the path the generated code builds as it descends:
    "data", then ".key" per property and "[i]" per array index, the seed's own syntax with "$" for
    "data". Not `.path`: that splits `name` on every ".", "[" and "]", so indexes come back as
    strings ("1": an index or a property named "1"?) and a name holding a dot is cut in two; the
    `name` string is what the library has whole."""
    if name is None:
        return "$"
    if name.startswith("data"):
        return "$" + name[len("data"):]
    return name


def errors_of(error):
    """The library's one error, as the seed's errors. For the four messages the seed words (the
    glue words them from the error's data: value, rule, rule_definition, definition), one
    library error can be several of the seed's: "must contain [...] properties" names the whole
    required list, "must not contain {...} properties" every extra property at once."""
    path, rule, value = render(error.name), error.rule, error.value
    if rule == "type":
        return [ValidationError(path, toolreg.type_message(error.rule_definition, value))]
    if rule == "enum":
        return [ValidationError(path, toolreg.enum_message(value, error.rule_definition))]
    if rule == "required" and isinstance(value, dict):
        return [ValidationError(path, toolreg.required_message(name))
                for name in error.rule_definition if name not in value]
    if rule == "additionalProperties" and error.rule_definition is False and isinstance(value, dict):
        return [ValidationError(path, toolreg.unexpected_message(name))
                for name in toolreg.extra_properties(value, error.definition)]
    # The library's own text, which starts with the location ("data.days must be ..."): kept whole,
    # as the library wrote it.
    return [ValidationError(path, error.message)]


class Schema:
    def __init__(self, validate):
        self.validate = validate

    def validate_json(self, text):
        # The library validates a parsed value: text that does not parse is one error at the root.
        value, malformed = toolreg.parse_instance(text)
        if malformed:
            return malformed
        try:
            # The compiled function returns the value (with defaults filled in: the library's
            # use_default=True, left as is; the tool gets the argument text, not this value).
            self.validate(value)
        except JsonSchemaValueException as error:
            return toolreg.sort_errors(errors_of(error))
        return []


def compile(text):
    try:
        root = toolreg.parse(text)
    except ValueError as error:
        raise toolreg.SchemaError("invalid JSON: %s" % error)
    if toolreg.STRICT_SUBSET:
        toolreg.check_subset(root)
    try:
        # The library's defaults (no handlers, no custom formats, use_default=True): the usual call.
        validate = fastjsonschema.compile(root)
    except JsonSchemaDefinitionException as error:
        # The library's refusal. Anything else it raises while generating code (a TypeError or
        # KeyError on a malformed schema, re.error on a bad pattern) is not caught: it is how the
        # library answers, and the adapter reports it as it comes.
        raise toolreg.SchemaError(str(error))
    return Schema(validate)


def new_registry(timeout_ms=None):
    return toolreg.Registry(compile, timeout_ms)


new_tool = toolreg.new_tool
