# frozen_string_literal: true
#
# The ag.02 contract (seed 000: a tool registry and its JSON Schema argument validation) built on
# the json-schema gem (Debian's ruby-json-schema), the way a Ruby user builds it: schemas and
# arguments parsed with JSON.parse, validated with JSON::Validator and its default options.
# Served by ../../conformance/adapters/ruby/adapter.rb (run from implementations/):
#
#     ruby ../conformance/adapters/ruby/adapter.rb ruby-json-schema/registry.rb
#
# Validation is the library's. The glue below is what the library cannot know: the seed's `$`
# paths rendered from the library's own error locations, the wording of the seed's four worked
# messages, the sort the seed asks for, and the small registry of section 2.3.

require "json"
require "json-schema"

module RubyJsonSchemaRegistry
  NAME = "json-schema"
  # The gem's version as installed, read at run time from its loaded specification (Debian's
  # rubygems-integration registers the packaged gem, so Gem.loaded_specs has it after the require).
  VERSION = Gem.loaded_specs.fetch("json-schema").version.to_s
  PROFILES = ["ag02"].freeze

  # The seed's name rule, ^[A-Za-z0-9_-]{1,64}$; in Ruby \A and \z, since $ also matches before a newline.
  NAME_PATTERN = /\A[A-Za-z0-9_-]{1,64}\z/.freeze
  DEFAULT_PARAMETERS = '{"type":"object"}'
  ERROR_PREFIX = "error: "

  # The one switch (README): STRICT_SUBSET=1 refuses at compile the keywords outside the seed's
  # subset, the check a user of this library adds by hand, since the library ignores keywords it
  # does not know and checks some it knows (format, oneOf, $ref...) that the seed refuses. Off by
  # default: the score shows the library as it is.
  STRICT_SUBSET = ENV["STRICT_SUBSET"] == "1"
  SUBSET = %w[type enum const properties required additionalProperties items minItems maxItems
              minLength maxLength pattern minimum maximum anyOf
              title description default examples $schema].freeze

  # $ref may name a schema by URL: the library's default reader would fetch it with open-uri. The
  # glue runs without network, so remote reads are refused (ReadRefused); files keep the default.
  READER = JSON::Schema::Reader.new(accept_uri: false)

  # The library's options, each left at its default but the reader (above):
  # - version: nil, so the default validator, draft-06 (json-schema 2.8 registers draft-04, then
  #   draft-06 as the default) unless the schema names its $schema. Draft-06 has no `const`: the
  #   library ignores it.
  # - parse_data: true: a String handed to the library is read again as JSON text, and failing that
  #   as a file path or URL. Arguments are parsed with JSON.parse first (as Ruby users do), so only
  #   an argument that is itself a JSON string reaches that path: "\"3\"" is validated as the number 3.
  # - strict: false, insert_defaults: false, clear_cache: false (schemas cached by their text).
  # - record_errors: true (fully_validate's option) so that every error is reported, not the first.
  VALIDATE_OPTIONS = { record_errors: true, errors_as_objects: true, schema_reader: READER }.freeze

  class ToolError < StandardError; end # what a tool raises to fail on purpose
  class SchemaError < StandardError; end
  class RegistryError < StandardError; end

  ValidationError = Struct.new(:path, :message) do
    def to_s
      "#{path}: #{message}"
    end
  end

  def self.quote(text)
    JSON.generate(text)
  end

  # The schema text, parsed and checked the way a registry checks a schema once, before its first
  # validation: the library has no compile step, so compile builds its validator
  # (JSON::Validator.new, which resolves $ref) with validate_schema: true, the library's own check of
  # a schema against its draft's metaschema (off in fully_validate by default; a registry runs it
  # once here, and each validation after it uses the defaults).
  def self.compile(text)
    schema = begin
      JSON.parse(text) # JSON.parse's defaults: nesting beyond 100 refused, NaN refused, last duplicate key wins
    rescue JSON::ParserError => e
      raise SchemaError, "invalid JSON: #{e.message}"
    end
    check_subset(schema, "#") if STRICT_SUBSET
    # A non-object schema is the library's to judge: it refuses arrays, numbers, booleans and null
    # (SchemaParseError), and reads a string as the location of a schema.
    JSON::Validator.new(schema, {}, validate_schema: true, schema_reader: READER)
    Schema.new(schema)
  end

  def self.check_subset(schema, at)
    return unless schema.is_a?(Hash)

    schema.each do |key, value|
      raise SchemaError, "unsupported keyword #{quote(key)} at #{at}" unless SUBSET.include?(key)

      case key
      when "properties" then value.each { |k, sub| check_subset(sub, "#{at}/properties/#{k}") } if value.is_a?(Hash)
      when "items", "additionalProperties" then check_subset(value, "#{at}/#{key}")
      when "anyOf" then value.each_with_index { |sub, i| check_subset(sub, "#{at}/anyOf/#{i}") } if value.is_a?(Array)
      end
    end
  end

  class Schema
    attr_reader :root

    def initialize(root)
      @root = root
    end

    # Validates argument text: the seed's ValidateJSON. Errors sorted by path, then message (the
    # seed's rule; the library reports them in its keyword order).
    def validate_json(text)
      data = begin
        JSON.parse(text) # as Ruby users parse arguments (3.0 becomes a Float, 3 an Integer)
      rescue JSON::ParserError => e # NestingError included
        return [ValidationError.new("$", "invalid JSON: #{e.message}")]
      end
      # fully_validate(schema, data, errors_as_objects: true) is new(...).validate; the validator is
      # kept to read its error objects, whose fragments are the location as an array (lossless,
      # where the hash's "#/a/b" is not) and whose schema holds the failing keyword.
      validator = JSON::Validator.new(@root, data, VALIDATE_OPTIONS)
      validator.validate
      errors = validator.validation_errors.flat_map { |e| RubyJsonSchemaRegistry.errors_for(e, data) }
      errors.sort_by { |e| [e.path, e.message] }
    end
  end

  # The seed's path from the library's fragments (strings, array indexes as "1"): a segment is an
  # index where the value at that point is an array, a property name otherwise.
  def self.render(fragments, data)
    path = +"$"
    value = data
    fragments.each do |segment|
      if value.is_a?(Array) || (!value.is_a?(Hash) && segment.match?(/\A\d+\z/))
        path << "[#{segment}]"
        value = value.is_a?(Array) ? value[segment.to_i] : nil
      else
        path << ".#{segment}"
        value = value.is_a?(Hash) ? value[segment] : nil
      end
    end
    [path, value]
  end

  # The library's error as the seed's errors. The four messages of the seed's worked example are
  # worded the seed's way from the library's error data; every other message is the library's own
  # text (its message attribute: without the " in schema <uuid>" that names the generated URI of an
  # inline schema, with the library's "The property '#/..." location, which is its wording).
  def self.errors_for(error, data)
    path, value = render(error.fragments, data)
    message = error.message
    case error.failed_attribute.name.split("::").last
    when "TypeV4Attribute", "TypeAttribute"
      # "The property '#/days' of type string did not match the following type: integer"
      if (m = message.match(/ of type (\S+) did not match (?:the following type|one or more of the following types): (.*)\z/m))
        got = m[1] == "integer" ? "number" : m[1] # the library names the Ruby class; JSON has no integer type
        return [ValidationError.new(path, "expected #{m[2].split(', ').join(' or ')}, got #{got}")]
      end
    when "RequiredAttribute"
      # "The property '#/' did not contain a required property of 'city'"
      if (m = message.match(/ did not contain a required property of '(.*)'\z/m))
        return [ValidationError.new(path, "missing required property #{quote(m[1])}")]
      end
    when "AdditionalPropertiesAttribute"
      # "... contains additional properties [\"country\"] outside of the schema when none are allowed":
      # one error a property, as the seed says; the list is the library's Array#inspect, read as JSON
      # (it is JSON for ordinary names); a list that does not read so keeps the library's message.
      if (m = message.match(/ contains additional properties (\[.*\]) outside of the schema when none are allowed\z/m))
        names = (JSON.parse(m[1]) rescue nil)
        if names.is_a?(Array) && names.all? { |n| n.is_a?(String) }
          return names.map { |n| ValidationError.new(path, "unexpected property #{quote(n)}") }
        end
      end
    when "EnumAttribute"
      # the value at the path and the failing schema's enum, as JSON
      enum = error.schema.schema["enum"]
      return [ValidationError.new(path, "#{JSON.generate(value)} is not one of #{JSON.generate(enum.to_a)}")]
    end
    [ValidationError.new(path, message)]
  end

  # --- tools and the registry (seed section 2.3, written from its text) ------------------------

  Tool = Struct.new(:name, :description, :schema_text, :fn)

  def self.new_tool(name, description, schema_text, fn)
    Tool.new(name, description, schema_text, fn)
  end

  Result = Struct.new(:call_id, :name, :content, :is_error) do
    # Result.Message(): role tool, the call's id, the content prefixed "error: " for a failure.
    def message
      { "role" => "tool", "tool_call_id" => call_id, "content" => is_error ? ERROR_PREFIX + content : content }
    end
  end

  # A call's cancellation, as Go's context: the registry cancels it at its timeout; a tool waits on it.
  class Cancel
    def initialize
      @lock = Mutex.new
      @cond = ConditionVariable.new
      @done = false
    end

    def cancel!
      @lock.synchronize do
        @done = true
        @cond.broadcast
      end
    end

    # Blocks until cancelled (true) or seconds pass (false); no seconds: until cancelled.
    def wait(seconds = nil)
      deadline = seconds && Process.clock_gettime(Process::CLOCK_MONOTONIC) + seconds
      @lock.synchronize do
        until @done
          if deadline
            left = deadline - Process.clock_gettime(Process::CLOCK_MONOTONIC)
            break if left <= 0

            @cond.wait(@lock, left)
          else
            @cond.wait(@lock)
          end
        end
        @done
      end
    end
  end

  # The tools an agent can call. Safe for concurrent use (one lock); call never raises.
  class Registry
    # timeout_ms: cut a call off after that long; nil: no deadline (the seed's Call has only the
    # caller's context).
    def initialize(timeout_ms = nil)
      @timeout = timeout_ms && timeout_ms / 1000.0
      @timeout_ms = timeout_ms
      @entries = {}
      @lock = Mutex.new
    end

    def register(tool)
      name = tool.name
      unless name.is_a?(String) && NAME_PATTERN.match?(name)
        raise RegistryError, "invalid tool name #{quote(name.to_s)}: must match ^[A-Za-z0-9_-]{1,64}$"
      end

      text = tool.schema_text
      text = DEFAULT_PARAMETERS if text.nil? || ["", "null"].include?(text.strip) # a missing schema means {"type":"object"}
      begin
        schema = RubyJsonSchemaRegistry.compile(text)
      rescue SchemaError, JSON::Schema::SchemaError, JSON::Schema::SchemaParseError,
             JSON::Schema::ValidationError, JSON::Schema::ReadError, JSON::Schema::JsonParseError => e
        raise RegistryError, "tool #{quote(name)}: invalid parameters: #{e.message}"
      end
      unless schema.root.is_a?(Hash) && schema.root["type"] == "object"
        raise RegistryError, "tool #{quote(name)}: parameters must have \"type\": \"object\""
      end

      @lock.synchronize do
        raise RegistryError, "tool #{quote(name)} is already registered" if @entries.key?(name)

        @entries[name] = [tool, schema]
      end
      nil
    end

    def names
      @lock.synchronize { @entries.keys.sort }
    end

    def definitions
      @lock.synchronize do
        @entries.sort.map do |name, (tool, schema)|
          { "name" => name, "description" => tool.description.to_s, "parameters" => schema.root }
        end
      end
    end

    def call(call_id, name, arguments)
      entry, available = @lock.synchronize { [@entries[name], @entries.keys.sort] }
      if entry.nil?
        listed = available.empty? ? "none" : available.join(", ")
        return Result.new(call_id, name, "unknown tool #{quote(name.to_s)} (available: #{listed})", true)
      end

      tool, schema = entry
      args = arguments.is_a?(String) && !arguments.strip.empty? ? arguments : "{}" # empty arguments mean {}
      errors = begin
        schema.validate_json(args)
      rescue StandardError => e # the library raised on these arguments (a bad pattern...): the call fails
        return Result.new(call_id, name, "invalid arguments for #{name}: #{e.class.name}: #{e.message}", true)
      end
      unless errors.empty?
        return Result.new(call_id, name, (["invalid arguments for #{name}:"] + errors.map(&:to_s)).join("\n"), true)
      end

      run(call_id, name, tool, args)
    end

    private

    def quote(text)
      RubyJsonSchemaRegistry.quote(text)
    end

    # Runs the tool on a thread of its own, recovering its panics, cancelling it at the timeout.
    def run(call_id, name, tool, args)
      cancel = Cancel.new
      outcome = nil
      worker = Thread.new do
        outcome = [:ok, tool.fn.call(args, cancel).to_s]
      rescue ToolError => e
        outcome = [:error, e.message]
      rescue Exception => e # rubocop:disable Lint/RescueException -- the recover around Execute
        outcome = [:panic, e.message.empty? ? e.class.name : e.message]
      end
      worker.report_on_exception = false
      worker.join(@timeout)
      cancel.cancel!
      kind, text = outcome
      case kind
      when :ok then Result.new(call_id, name, text, false)
      when :error then Result.new(call_id, name, "tool #{name} failed: #{text}", true)
      when :panic then Result.new(call_id, name, "tool #{name} panicked: #{text}", true)
      else Result.new(call_id, name, "tool #{name} timed out after #{@timeout_ms}ms", true)
      end
    end
  end

  def self.new_registry(timeout_ms = nil)
    Registry.new(timeout_ms)
  end
end
