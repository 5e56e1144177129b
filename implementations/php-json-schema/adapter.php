<?php
// tool-conformance adapter for justinrainbow/json-schema (Debian php-json-schema), PHP 8.2.
//
// One self-contained file, three parts:
//   1. the library: JsonSchema\Validator, used as its README shows (json_decode the schema and the
//      data, objects as stdClass; new Validator; validate($data, $schema) with the default check
//      mode, Constraint::CHECK_MODE_NORMAL; getErrors() with each error's "pointer");
//   2. the seed's (ag.02) registry glue, written from the seed's text, since the library has none:
//      Schema::compile / validateJSON, Registry register / names / definitions / call, Result;
//   3. the stdio protocol loop (conformance/PROTOCOL.md): a JSON request a line on stdin, a reply a
//      line on stdout.
// Capabilities: validate and registry. Not concurrency: PHP has no threads, so the `concurrently`
// rows cannot be run at once here (they are reported "not answerable").
//
// Run: php php-json-schema/adapter.php (from implementations/). STRICT_SUBSET=1: see README.md.

declare(strict_types=1);

// Nothing but replies may reach stdout: PHP's warnings and deprecations go to stderr, and anything
// the library would print (echo) is caught by an output buffer and passed on to stderr. Replies are
// written with fwrite(STDOUT), which bypasses that buffer.
ini_set('display_errors', 'stderr');
ini_set('log_errors', '0');
ob_start(function (string $buffer): string {
    fwrite(STDERR, $buffer);
    return '';
}, 1);

require '/usr/share/php/JsonSchema/autoload.php'; // Debian's autoloader for the library

use JsonSchema\Constraints\TypeConstraint;
use JsonSchema\Validator;

// ---------------------------------------------------------------------------------------------
// The library's version. It has no version constant, and Debian installs no Composer metadata
// (no vendor/composer/installed.json). The Debian package's changelog names the packaged version on
// its first line, "php-json-schema (5.2.12-2) unstable; ..." : read it at start (a file read, no
// subprocess), and report its upstream part (no epoch "N:", no Debian revision "-2").
// FALLBACK_VERSION is used only when that file is absent (images that strip /usr/share/doc); it is
// the upstream version of the Debian package this adapter was written against (php-json-schema
// 5.2.12-2, `dpkg-query -W php-json-schema`).
const FALLBACK_VERSION = '5.2.12';

function library_version(): string
{
    $changelog = '/usr/share/doc/php-json-schema/changelog.Debian.gz';
    $gz = @gzopen($changelog, 'rb');
    if ($gz !== false) {
        $line = (string) gzgets($gz, 4096);
        gzclose($gz);
        if (preg_match('/^php-json-schema \((?:\d+:)?([^)\s]+?)(?:-[^-)\s]+)?\)/', $line, $m)) {
            return $m[1];
        }
    }
    return FALLBACK_VERSION;
}

// ---------------------------------------------------------------------------------------------
// Part 2: the seed's API on the library.

/** A schema the glue refuses at compile: text that is not JSON, or (STRICT_SUBSET=1) a keyword outside the subset. */
final class SchemaError extends Exception {}

/** The error a tool returns on purpose (Go's `return "", err`); anything else it throws is a panic. */
final class ToolError extends Exception {}

/**
 * JSON text without PHP's escaping of "/" and of non-ASCII characters, 1.0 kept as 1.0. A value
 * JSON cannot hold (json_decode reads 1e400 as INF) is written 0 rather than failing the reply.
 */
function json_text($value): string
{
    return (string) json_encode($value, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_PRESERVE_ZERO_FRACTION
        | JSON_PARTIAL_OUTPUT_ON_ERROR | JSON_INVALID_UTF8_SUBSTITUTE);
}

final class Schema
{
    /** The subset the seed implements, and its annotations (STRICT_SUBSET=1 only). */
    private const SUBSET = ['type', 'enum', 'const', 'properties', 'required', 'additionalProperties', 'items',
        'minItems', 'maxItems', 'minLength', 'maxLength', 'pattern', 'minimum', 'maximum', 'anyOf',
        'title', 'description', 'default', 'examples', '$schema'];

    private function __construct(private $schema) {}

    /**
     * The library has no compile step: what its users do before validating is json_decode the
     * schema (objects as stdClass, as the library expects), so text that does not parse is the one
     * refusal. The library's own schema check (CHECK_MODE_VALIDATE_SCHEMA, a meta-schema check) is
     * not in the default check mode, so it is not used; whatever the library makes of a schema is
     * seen at validation.
     */
    public static function compile(string $text): self
    {
        try {
            $schema = json_decode($text, false, 512, JSON_THROW_ON_ERROR);
        } catch (JsonException $e) {
            throw new SchemaError('invalid JSON: ' . $e->getMessage());
        }
        // The one switch (README): a user wanting the seed's "refuse what is not implemented" adds
        // this walk in front of the library, which has no such option. Off by default.
        if (getenv('STRICT_SUBSET') === '1') {
            self::checkSubset($schema, '#');
        }
        return new self($schema);
    }

    /** STRICT_SUBSET=1: refuses a keyword outside the subset wherever a subschema can be. */
    private static function checkSubset($node, string $at): void
    {
        if (!$node instanceof stdClass) {
            return; // not an object: left to the library
        }
        $keys = array_map('strval', array_keys(get_object_vars($node)));
        sort($keys, SORT_STRING); // the first offending keyword in a fixed order
        foreach ($keys as $k) {
            if (!in_array($k, self::SUBSET, true)) {
                throw new SchemaError('unsupported keyword ' . json_text($k) . ' at ' . $at);
            }
        }
        if (isset($node->properties) && $node->properties instanceof stdClass) {
            $names = array_map('strval', array_keys(get_object_vars($node->properties)));
            sort($names, SORT_STRING);
            foreach ($names as $name) {
                self::checkSubset($node->properties->{$name}, $at . '/properties/' . strtr($name, ['~' => '~0', '/' => '~1']));
            }
        }
        if (isset($node->items) && is_array($node->items)) {
            throw new SchemaError('unsupported keyword "items" at ' . $at . ': only a single schema is supported');
        }
        self::checkSubset($node->items ?? null, $at . '/items');
        self::checkSubset($node->additionalProperties ?? null, $at . '/additionalProperties');
        if (isset($node->anyOf) && is_array($node->anyOf)) {
            foreach ($node->anyOf as $i => $sub) {
                self::checkSubset($sub, $at . '/anyOf/' . $i);
            }
        }
    }

    /** The parsed schema (for the registry's "type": "object" check). */
    public function value()
    {
        return $this->schema;
    }

    /**
     * Validates argument text: json_decode it (as the library's users do), then a new Validator's
     * validate($data, $schema) in the default check mode, then getErrors(). Text that does not
     * parse never reaches the library: one error at "$", "invalid JSON: <json_decode's message>"
     * (PROTOCOL.md, "The library raises on the instance"). Errors are sorted by path, then message
     * (the seed: the same call always gets the same text).
     *
     * @return list<array{path: string, message: string}>
     */
    public function validateJSON(string $text): array
    {
        try {
            $data = json_decode($text, false, 512, JSON_THROW_ON_ERROR);
        } catch (JsonException $e) {
            return [['path' => '$', 'message' => 'invalid JSON: ' . $e->getMessage()]];
        }
        $value = $data; // validate() takes the value by reference; the walk below reads the original
        $validator = new Validator();
        $validator->validate($value, $this->schema);
        $errors = [];
        foreach ($validator->getErrors() as $error) {
            $errors[] = self::render($error, $data);
        }
        usort($errors, fn ($a, $b) => strcmp($a['path'], $b['path']) ?: strcmp($a['message'], $b['message']));
        return $errors;
    }

    /**
     * One library error as {path, message}. The location is the error's "pointer" (RFC 6901, as
     * the library encodes it: "/" as ~1, "~" as ~0, "%" as %25), which keeps every property name
     * whole ("property", the library's dotted rendering, loses names that look like numbers: it
     * prints any numeric segment as [n]). A pointer does not say whether "1" is an index or a
     * property; the instance does, so the walk below renders "$.tags[1]" or "$.1" from the value
     * found at each step.
     *
     * The message is the library's own text, except the four messages the seed's worked example
     * fixes, which the seed words and which are rebuilt from the library's error data:
     *   type                 "String value found, but an integer is required" -> expected integer, got string
     *   required             pointer /city, "The property city is required"    -> at the parent: missing required property "city"
     *   additionalProp       "The property country is not defined and ..."     -> unexpected property "country"
     *   enum                 the error's "enum" list, the value at the pointer -> "kelvin" is not one of ["c","f"]
     */
    private static function render(array $error, $data): array
    {
        $segments = self::segments((string) ($error['pointer'] ?? ''));
        $message = (string) $error['message'];
        switch ($error['constraint'] ?? '') {
            case 'type':
                $message = self::typeMessage($message);
                break;
            case 'required':
                // The library points at the missing property itself, and names it in its message
                // ("The property NAME is required"); the seed reports it at the object. An empty
                // name adds no segment to the library's pointer, so only a non-empty one is dropped.
                $name = self::between($message, 'The property ', ' is required');
                if ($name !== null) {
                    if ($name !== '' && $segments !== []) {
                        array_pop($segments);
                    }
                    $message = 'missing required property ' . json_text($name);
                }
                break;
            case 'additionalProp':
                $name = self::between($message, 'The property ', ' is not defined and the definition does not allow additional properties');
                if ($name !== null) {
                    $message = 'unexpected property ' . json_text($name);
                }
                break;
            case 'enum':
                if (array_key_exists('enum', $error)) {
                    [, $value] = self::walk($segments, $data);
                    $message = json_text($value) . ' is not one of ' . json_text($error['enum']);
                }
                break;
        }
        [$path] = self::walk($segments, $data);
        return ['path' => $path, 'message' => $message];
    }

    /** The pointer's segments, decoded as the library's JsonPointer decodes them. */
    private static function segments(string $pointer): array
    {
        if ($pointer === '') {
            return [];
        }
        return array_map(fn ($s) => strtr($s, ['~1' => '/', '~0' => '~', '%25' => '%']), explode('/', substr($pointer, 1)));
    }

    /** Walks the instance along the segments: [the seed's path, the value there]. */
    private static function walk(array $segments, $data): array
    {
        $path = '$';
        $current = $data;
        foreach ($segments as $seg) {
            if (is_array($current)) { // a JSON array (objects decode as stdClass)
                $path .= '[' . $seg . ']';
                $current = $current[(int) $seg] ?? null;
            } else {
                $path .= '.' . $seg;
                $current = ($current instanceof stdClass && property_exists($current, $seg)) ? $current->{$seg} : null;
            }
        }
        return [$path, $current];
    }

    /** The text between a prefix and a suffix, or null when the message is not of that shape. */
    private static function between(string $text, string $prefix, string $suffix): ?string
    {
        if (!str_starts_with($text, $prefix) || !str_ends_with($text, $suffix) || strlen($text) < strlen($prefix) + strlen($suffix)) {
            return null;
        }
        return substr($text, strlen($prefix), strlen($text) - strlen($prefix) - strlen($suffix));
    }

    /**
     * "Integer value found, but a string or a null is required" -> "expected string or null, got
     * integer". The found type is PHP's gettype() of the decoded value (double is a JSON number,
     * NULL null); the expected names are read back through the library's own wording table
     * (TypeConstraint::$wording, "an integer" -> integer). A message of another shape stays as is.
     */
    private static function typeMessage(string $message): string
    {
        if (!preg_match('/^(\w+) value found, but (.+) is required$/sD', $message, $m)) {
            return $message;
        }
        $got = ['double' => 'number', 'null' => 'null'][strtolower($m[1])] ?? strtolower($m[1]);
        $names = array_flip(array_filter(TypeConstraint::$wording, 'is_string'));
        $expected = [];
        foreach (preg_split('/, | or /', $m[2]) as $wording) {
            if (!isset($names[$wording])) {
                return $message;
            }
            $expected[] = $names[$wording];
        }
        return 'expected ' . implode(' or ', $expected) . ', got ' . $got;
    }
}

/** A call's cancellation, as Go's context: a deadline (null: none) that tools may watch. */
final class Context
{
    public function __construct(public readonly ?float $deadline = null) {}

    public function done(): bool
    {
        return $this->deadline !== null && microtime(true) >= $this->deadline;
    }

    public function err(): string
    {
        return 'context deadline exceeded';
    }
}

/** A tool: its definition (name, description, parameters text) and its function fn(string $args, Context $ctx): string. */
final class Tool
{
    /** A blank parameters text, or "null", is a missing schema: {"type":"object"} (the seed). */
    public function __construct(public string $name, public string $description, public string $parameters, public Closure $fn)
    {
        $trimmed = trim($parameters);
        if ($trimmed === '' || $trimmed === 'null') {
            $this->parameters = '{"type":"object"}';
        }
    }
}

/** The outcome of one call: content without the "error: " prefix; message() adds it. */
final class Result
{
    public function __construct(public string $callId, public string $name, public string $content, public bool $isError) {}

    /** The tool message that answers the call. */
    public function message(): array
    {
        return ['role' => 'tool', 'tool_call_id' => $this->callId, 'content' => ($this->isError ? 'error: ' : '') . $this->content];
    }
}

final class Registry
{
    /** The tool names the contract allows (D: "$" does not match before a final newline). */
    public const NAME_PATTERN = '/^[A-Za-z0-9_-]{1,64}$/D';

    /** @var array<string, array{tool: Tool, schema: Schema}> */
    private array $tools = [];

    /** Adds a tool, or returns why not (the registry is then unchanged). */
    public function register(Tool $tool): ?string
    {
        $name = $tool->name;
        if (!preg_match(self::NAME_PATTERN, $name)) {
            return 'invalid tool name ' . json_text($name) . ': must match ^[A-Za-z0-9_-]{1,64}$';
        }
        try {
            $schema = Schema::compile($tool->parameters);
        } catch (SchemaError $e) {
            return 'tool ' . json_text($name) . ': invalid parameters: ' . $e->getMessage();
        }
        $top = $schema->value();
        if (!($top instanceof stdClass && property_exists($top, 'type') && $top->type === 'object')) {
            return 'tool ' . json_text($name) . ': parameters must have "type": "object"';
        }
        if (isset($this->tools[$name])) {
            return 'tool ' . json_text($name) . ' is already registered';
        }
        $this->tools[$name] = ['tool' => $tool, 'schema' => $schema];
        return null;
    }

    /** The names, sorted (byte order: code-point order for UTF-8). */
    public function names(): array
    {
        $names = array_map('strval', array_keys($this->tools));
        sort($names, SORT_STRING);
        return $names;
    }

    /** The definitions sorted by name, parameters as JSON values: the same prompt every run. */
    public function definitions(): array
    {
        return array_map(fn ($name) => [
            'name' => $name,
            'description' => $this->tools[$name]['tool']->description,
            'parameters' => json_decode($this->tools[$name]['tool']->parameters, false, 512, JSON_THROW_ON_ERROR),
        ], $this->names());
    }

    /**
     * Validates the arguments and runs the tool only if they pass. Every failure is an error
     * Result; what the tool throws is caught (its message, never a stack trace). An exception from
     * the library while validating is not caught: it is the library's answer (threw).
     */
    public function call(Context $ctx, string $id, string $name, string $arguments): Result
    {
        $fail = fn (string $content) => new Result($id, $name, $content, true);
        if (!isset($this->tools[$name])) {
            $names = $this->names();
            return $fail('unknown tool ' . json_text($name) . ' (available: ' . ($names ? implode(', ', $names) : 'none') . ')');
        }
        $args = trim($arguments) === '' ? '{}' : $arguments; // some providers send "" for no parameters
        $errors = $this->tools[$name]['schema']->validateJSON($args);
        if ($errors) {
            $lines = array_map(fn ($e) => $e['path'] . ': ' . $e['message'], $errors); // sorted by validateJSON
            return $fail("invalid arguments for $name:\n" . implode("\n", $lines));
        }
        try {
            $out = ($this->tools[$name]['tool']->fn)($args, $ctx);
        } catch (ToolError $e) {
            return $fail("tool $name failed: " . $e->getMessage());
        } catch (Throwable $e) {
            return $fail("tool $name panicked: " . $e->getMessage());
        }
        return new Result($id, $name, (string) $out, false);
    }
}

// ---------------------------------------------------------------------------------------------
// Part 3: the protocol.

final class Adapter
{
    private Registry $registry;
    private ?int $timeoutMs = null;
    /** @var array<string, list<string>> the argument texts each tool ran with during this call */
    private array $runs = [];

    public function __construct()
    {
        $this->registry = new Registry();
    }

    /** A tool function from its behavior (PROTOCOL.md, Behaviors). */
    private function fn(string $tool, array $behavior): Closure
    {
        return function (string $args, Context $ctx) use ($tool, $behavior): string {
            $this->runs[$tool][] = $args;
            switch ($behavior['kind'] ?? '') {
                case 'echo':
                    return $args;
                case 'reply':
                    return (string) $behavior['text'];
                case 'fail':
                    throw new ToolError((string) $behavior['text']);
                case 'panic':
                    $v = $behavior['value'] ?? null;
                    throw new RuntimeException(is_string($v) ? $v : json_text($v));
                case 'sleep':
                    $until = microtime(true) + ((int) $behavior['ms']) / 1000;
                    while (microtime(true) < $until) {
                        if ($ctx->done()) {
                            throw new ToolError($ctx->err());
                        }
                        usleep(1000);
                    }
                    return (string) ($behavior['text'] ?? '');
            }
            // hang (or an unknown kind): until the call's deadline; none means for ever
            while (!$ctx->done()) {
                usleep(1000);
            }
            throw new ToolError($ctx->err());
        };
    }

    /** Runs $f, a call into the implementation; what it throws is its answer: threw. */
    private static function guard(Closure $f): array
    {
        try {
            return $f();
        } catch (Throwable $e) {
            return ['threw' => get_class($e) . ': ' . str_replace("\n", ' ', $e->getMessage())];
        }
    }

    public function handle(array $req): array
    {
        switch ($req['cmd'] ?? null) {
            case 'start':
                return ['ready' => true, 'version' => 1, 'profiles' => ['ag02'], 'capabilities' => ['validate', 'registry'],
                    'implementation' => ['name' => 'justinrainbow/json-schema', 'language' => 'php', 'version' => library_version()]];
            case 'compile':
            case 'validate':
                return self::guard(function () use ($req) {
                    try {
                        $schema = Schema::compile((string) $req['schema']);
                    } catch (SchemaError $e) {
                        return ['ok' => false, 'error' => $e->getMessage()];
                    }
                    if ($req['cmd'] === 'compile') {
                        return ['ok' => true];
                    }
                    return ['ok' => true, 'errors' => $schema->validateJSON((string) $req['instance'])];
                });
            case 'registry':
                $this->registry = new Registry();
                $this->timeoutMs = isset($req['timeoutMs']) ? (int) $req['timeoutMs'] : null;
                return ['ok' => true];
            case 'register':
                $t = $req['tool'];
                $tool = new Tool((string) $t['name'], (string) ($t['description'] ?? ''), (string) ($t['parameters'] ?? ''), $this->fn((string) $t['name'], (array) $t['behavior']));
                return self::guard(function () use ($tool) {
                    $error = $this->registry->register($tool);
                    return $error === null ? ['ok' => true] : ['ok' => false, 'error' => $error];
                });
            case 'names':
                return self::guard(fn () => ['names' => $this->registry->names()]);
            case 'definitions':
                return self::guard(fn () => ['definitions' => $this->registry->definitions()]);
            case 'call':
                $this->runs = [];
                $c = $req['call'];
                $ctx = new Context($this->timeoutMs !== null ? microtime(true) + $this->timeoutMs / 1000 : null);
                $reply = self::guard(function () use ($ctx, $c) {
                    $res = $this->registry->call($ctx, (string) $c['id'], (string) $c['name'], (string) $c['arguments']);
                    return ['result' => ['callId' => $res->callId, 'name' => $res->name, 'content' => $res->content, 'isError' => $res->isError],
                        'message' => $res->message()];
                });
                $reply['runs'] = (object) $this->runs;
                return $reply;
            case 'stop':
                return ['ok' => true];
        }
        return ['errored' => true, 'message' => 'unknown command ' . json_encode($req['cmd'] ?? null)];
    }
}

$adapter = new Adapter();
while (($line = fgets(STDIN)) !== false) {
    $seq = $req = null;
    try {
        // The request is the harness's JSON, decoded as arrays (only the schema and instance texts
        // inside it are the library's business).
        $req = json_decode($line, true, 512, JSON_THROW_ON_ERROR);
        if (!is_array($req)) {
            throw new RuntimeException('the request is not a JSON object');
        }
        $seq = $req['seq'] ?? null;
        $reply = $adapter->handle($req);
    } catch (Throwable $e) {
        // a failure of the adapter itself, outside the calls into the implementation: errored
        $reply = ['errored' => true, 'message' => 'adapter: ' . get_class($e) . ': ' . $e->getMessage()];
    }
    $reply['seq'] = $seq;
    fwrite(STDOUT, json_text($reply) . "\n");
    fflush(STDOUT);
    if (($req['cmd'] ?? null) === 'stop') {
        break;
    }
}
