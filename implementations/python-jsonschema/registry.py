"""The ag.02 contract on python-jsonschema (Debian's python3-jsonschema, jsonschema 4.10.x), used the
way its users use it: Draft202012Validator.check_schema, then Draft202012Validator(schema) and
iter_errors(instance) for every error, error.absolute_path for the location.

Only the validator is here; the registry (names, duplicates, sorting, the `error: ` result,
panics, timeouts, empty arguments) is the shared ../python-registry/toolreg.py.

    /usr/bin/python3 ../conformance/adapters/python/adapter.py python-jsonschema/registry.py
"""

import importlib.metadata
import os
import sys

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError as LibrarySchemaError

# The shared registry lives in the sibling folder python-registry/ (written once for both Python
# validator libraries); this file's folder's parent is put on sys.path to import it by path.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python-registry"))
import toolreg  # noqa: E402
from toolreg import ToolError, ValidationError  # noqa: E402,F401  (ToolError: the adapter's interface)

NAME = "jsonschema"
# The installed distribution's version, read at run time.
VERSION = importlib.metadata.version("jsonschema")


def render(path):
    """error.absolute_path is a deque of steps from the root: property names (str) and array
    indexes (int). Rendered the seed's way, $ then .name or [i]; lossless, as the seed's paths are
    (a name is written as is, no quoting)."""
    return "$" + "".join("[%d]" % step if isinstance(step, int) else "." + step for step in path)


class Schema:
    def __init__(self, validator):
        self.validator = validator

    def validate_json(self, text):
        # The library validates a parsed value: text that does not parse is one error at the root.
        value, malformed = toolreg.parse_instance(text)
        if malformed:
            return malformed
        errors = []
        # The n-th "required" error of one schema at one path is the n-th missing name: the library
        # loops over the `required` list and yields one error per missing name, its name only
        # inside a repr'd message, so the glue recounts the missing names from the error's data.
        required_seen = {}
        # iter_errors: every error (validate() raises the best one only). Not filtered: where a
        # type mismatch comes with other keywords' errors on the same value, the library reports
        # them all, and so does the glue.
        for error in self.validator.iter_errors(value):
            path = render(error.absolute_path)
            kind = error.validator
            if kind == "type":
                errors.append(ValidationError(path, toolreg.type_message(error.validator_value, error.instance)))
            elif kind == "enum":
                errors.append(ValidationError(path, toolreg.enum_message(error.instance, error.validator_value)))
            elif kind == "required":
                missing = [n for n in error.validator_value if n not in error.instance]
                key = (id(error.schema), path)
                n = required_seen.get(key, 0)
                required_seen[key] = n + 1
                name = missing[n] if n < len(missing) else None
                errors.append(ValidationError(path, toolreg.required_message(name) if name is not None else error.message))
            elif kind == "additionalProperties" and error.validator_value is False:
                # One library error for all the extra properties; the seed has one per property.
                for name in toolreg.extra_properties(error.instance, error.schema):
                    errors.append(ValidationError(path, toolreg.unexpected_message(name)))
            else:
                errors.append(ValidationError(path, error.message))  # the library's own text
        return toolreg.sort_errors(errors)


def compile(text):
    try:
        root = toolreg.parse(text)
    except ValueError as error:
        raise toolreg.SchemaError("invalid JSON: %s" % error)
    if toolreg.STRICT_SUBSET:
        toolreg.check_subset(root)
    try:
        # The library's own check, as users who want bad schemas refused call it (the constructor
        # checks nothing): the schema against the draft 2020-12 metaschema. It refuses what the
        # metaschema refuses (an unknown type name, minLength -1, required not an array) and
        # accepts the rest: unknown keywords, format, oneOf, $ref, an empty enum, a boolean
        # schema, and (4.10 checks no "regex" format here) a pattern that does not compile, which
        # re.search raises on later, when a string meets it.
        Draft202012Validator.check_schema(root)
    except LibrarySchemaError as error:
        raise toolreg.SchemaError(error.message)
    # No format_checker: the library's default, so "format" is an annotation (as 2020-12 says).
    return Schema(Draft202012Validator(root))


def new_registry(timeout_ms=None):
    return toolreg.Registry(compile, timeout_ms)


new_tool = toolreg.new_tool
