package tool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/xeipuuv/gojsonschema"
)

// LibraryVersion is gojsonschema's version. The library has no version constant, so build.sh
// passes the upstream part of the Debian package's version (dpkg-query, 1.2.0-3 -> 1.2.0) in with
// -ldflags "-X tinyllm/agent/tool.LibraryVersion=...". Empty when built some other way.
var LibraryVersion = ""

// ValidationError is one violation: Path is "$", "$.days", "$.tags[1]"; Msg the text after it.
type ValidationError struct{ Path, Msg string }

func (e ValidationError) Error() string { return e.Path + ": " + e.Msg }

// Schema is a compiled parameters schema: gojsonschema's, as its users build it.
type Schema struct{ s *gojsonschema.Schema }

// Compile builds the schema the way gojsonschema's README does:
// gojsonschema.NewSchema(gojsonschema.NewStringLoader(text)). That is NewSchemaLoader's defaults:
// draft auto-detected ("Hybrid"), no meta-schema validation (Validate: false). Whatever NewSchema
// refuses is the compile error, in its own words; everything else compiles (unknown keywords such
// as "format" or "oneOf" are the library's to implement or ignore), unless STRICT_SUBSET=1.
func Compile(raw json.RawMessage) (*Schema, error) {
	// The one switch (README): a user who wants the seed's "refuse what is not implemented" adds
	// this check in front of the library, which has no such option. Off by default.
	if os.Getenv("STRICT_SUBSET") == "1" {
		if err := checkSubset(raw); err != nil {
			return nil, err
		}
	}
	s, err := gojsonschema.NewSchema(gojsonschema.NewStringLoader(string(raw)))
	if err != nil {
		return nil, err
	}
	return &Schema{s}, nil
}

// ValidateJSON validates the argument text as gojsonschema's users do:
// schema.Validate(gojsonschema.NewStringLoader(args)), then result.Errors(). The library parses
// the text itself (encoding/json with UseNumber); text it cannot parse makes Validate return an
// error, which the seed's API can only report as one error at "$": "invalid JSON: <its text>".
// Errors are sorted by path then message (the seed: the same call always gets the same text;
// gojsonschema walks objects in Go map order, so its own order changes from run to run).
func (s *Schema) ValidateJSON(raw []byte) []ValidationError {
	result, err := s.s.Validate(gojsonschema.NewStringLoader(string(raw)))
	if err != nil {
		return []ValidationError{{Path: "$", Msg: "invalid JSON: " + err.Error()}}
	}
	// The parsed instance, only to tell an array index from a property name in the error's
	// context (below); decoded exactly as the library decodes it, so it succeeds when Validate did.
	var doc interface{}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	_ = dec.Decode(&doc)

	out := []ValidationError{}
	for _, e := range result.Errors() {
		out = append(out, ValidationError{Path: renderPath(e.Context(), doc), Msg: message(e)})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path // byte order of UTF-8 is code-point order
		}
		return out[i].Msg < out[j].Msg
	})
	return out
}

// segmentSep joins the context's segments when we read them back: the JsonContext is a list of
// strings ("(root)", then each property name or array index) whose fields are unexported; its
// String(sep) joins them with sep. Byte 0xFF never occurs in UTF-8, and encoding/json turns any
// invalid UTF-8 in a key into U+FFFD, so splitting on it gives back each segment exactly
// (Field() joins with "." and loses property names that contain a dot).
const segmentSep = "\xff"

// renderPath renders gojsonschema's error context as the seed's path. The context stores an array
// index as its decimal text, like a property name; the instance tells which one it is (the value
// at that step is an array or an object), so "$.tags[1]" and a property named "1" ("$.1") are
// both rendered right.
func renderPath(ctx *gojsonschema.JsonContext, doc interface{}) string {
	if ctx == nil {
		return "$"
	}
	segs := strings.Split(ctx.String(segmentSep), segmentSep)
	path, cur := "$", doc
	for _, seg := range segs[1:] { // segs[0] is the root, "(root)"
		switch v := cur.(type) {
		case []interface{}:
			path += "[" + seg + "]"
			if i, err := strconv.Atoi(seg); err == nil && i >= 0 && i < len(v) {
				cur = v[i]
			} else {
				cur = nil
			}
		case map[string]interface{}:
			path += "." + seg
			cur = v[seg]
		default: // not reachable for errors the library reports on this instance
			path += "." + seg
			cur = nil
		}
	}
	return path
}

// message is the library's own text (Description(), its default English locale), except for the
// four messages the seed's worked example fixes, which the seed words and we rebuild from the
// library's error data (its Type() and Details()):
//
//	invalid_type                     expected integer, got string   (details expected, given)
//	required                         missing required property "city" (details property)
//	additional_property_not_allowed  unexpected property "country"  (details property)
//	enum                             "kelvin" is not one of ["c","f"] (Value(), details allowed)
func message(e gojsonschema.ResultError) string {
	d := e.Details()
	switch e.Type() {
	case "invalid_type":
		// "expected" is one type, or a union that the library prints as "[integer,string]";
		// a union is worded as the seed's reference does: "integer or string".
		expected := fmt.Sprint(d["expected"])
		if strings.HasPrefix(expected, "[") && strings.HasSuffix(expected, "]") {
			expected = strings.Join(strings.Split(expected[1:len(expected)-1], ","), " or ")
		}
		return fmt.Sprintf("expected %s, got %v", expected, d["given"])
	case "required":
		return "missing required property " + jsonText(fmt.Sprint(d["property"]))
	case "additional_property_not_allowed":
		return "unexpected property " + jsonText(fmt.Sprint(d["property"]))
	case "enum":
		// "allowed" is the library's list: each member as compact JSON text, joined with ", ";
		// wrapped in brackets it is a JSON array, written back compact: ["c","f"].
		allowed := fmt.Sprint(d["allowed"])
		var list []interface{}
		dec := json.NewDecoder(strings.NewReader("[" + allowed + "]"))
		dec.UseNumber()
		if dec.Decode(&list) == nil {
			allowed = jsonText(list)
		} else {
			allowed = "[" + allowed + "]"
		}
		return jsonText(e.Value()) + " is not one of " + allowed
	}
	return e.Description()
}

// jsonText is v as compact JSON, without Go's HTML escaping of <, > and &.
func jsonText(v interface{}) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// subset: the keywords the seed implements, and its annotations.
var subset = map[string]bool{
	"type": true, "enum": true, "const": true, "properties": true, "required": true,
	"additionalProperties": true, "items": true, "minItems": true, "maxItems": true,
	"minLength": true, "maxLength": true, "pattern": true, "minimum": true, "maximum": true,
	"anyOf": true, "title": true, "description": true, "default": true, "examples": true, "$schema": true,
}

// checkSubset (STRICT_SUBSET=1 only) refuses a keyword outside the seed's subset, anywhere a
// subschema can be (properties' values, items, additionalProperties, anyOf's members). Text that
// does not parse, and values of the wrong shape, are left to the library to refuse.
func checkSubset(raw json.RawMessage) error {
	var doc interface{}
	if json.Unmarshal(raw, &doc) != nil {
		return nil
	}
	return walkSubset(doc, "#")
}

func walkSubset(node interface{}, at string) error {
	obj, ok := node.(map[string]interface{})
	if !ok {
		return nil
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys) // the first offending keyword in a fixed order
	for _, k := range keys {
		if !subset[k] {
			return fmt.Errorf("unsupported keyword %s at %s", jsonText(k), at)
		}
	}
	if props, ok := obj["properties"].(map[string]interface{}); ok {
		names := make([]string, 0, len(props))
		for k := range props {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			p := strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
			if err := walkSubset(props[k], at+"/properties/"+p); err != nil {
				return err
			}
		}
	}
	if _, ok := obj["items"].([]interface{}); ok {
		return fmt.Errorf("unsupported keyword %s at %s: only a single schema is supported", jsonText("items"), at)
	}
	if err := walkSubset(obj["items"], at+"/items"); err != nil {
		return err
	}
	if err := walkSubset(obj["additionalProperties"], at+"/additionalProperties"); err != nil {
		return err
	}
	if list, ok := obj["anyOf"].([]interface{}); ok {
		for i, sub := range list {
			if err := walkSubset(sub, at+"/anyOf/"+strconv.Itoa(i)); err != nil {
				return err
			}
		}
	}
	return nil
}
