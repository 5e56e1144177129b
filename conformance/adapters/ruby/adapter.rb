#!/usr/bin/env ruby
# frozen_string_literal: true
#
# A stdio adapter for tool-conformance (conformance/PROTOCOL.md, version 1).
#
#     ruby adapter.rb path/to/your_impl.rb [ModuleName]
#
# It reads one JSON request a line on stdin and writes one JSON reply a line on stdout; logs go
# to stderr, and so does whatever your code prints (puts is safe: it shows in the report).
# Your file provides this small interface (the seed's Go API, in Ruby), as methods of a module
# (`def self.compile`, or `module_function`) or as top-level methods and constants:
#
#     compile(schema_text) -> schema                 raise to refuse; the exception's message is the error
#     schema.validate_json(text) -> [error, ...]     each with #path ("$.tags[1]") and #message
#     new_registry(timeout_ms) -> registry           a fresh, empty registry; timeout_ms may be nil
#     new_tool(name, description, schema_text_or_nil, fn) -> tool
#     registry.register(tool)                        raise to refuse; the exception's message is the error
#     registry.names -> [String]
#     registry.definitions -> [{"name", "description", "parameters"}]   parameters as a JSON value
#     registry.call(call_id, name, arguments) -> result   #call_id #name #content #is_error #message
#     ToolError                                      what a tool raises to fail on purpose
#     NAME, VERSION, PROFILES                        optional: for the report; PROFILES default ["ag02"]
#
# A tool function is fn.call(arguments, cancel) -> String; `cancel` is your registry's cancellation
# token, an object whose #wait(seconds = nil) blocks until the call is cancelled (true) or the
# seconds pass (false); nil if your registry cancels a call by Thread#raise or Timeout.timeout.
# Standard library only; Ruby 2.7+.
#
# What your code raises is its answer. compile and register refuse by raising a StandardError,
# except the CRASHES below (a bug, never a refusal); anything raised by validate_json, names,
# definitions or call, and any Exception that is no StandardError (SystemStackError, NoMemoryError,
# ScriptError...), is a crash. A crash is replied {"threw": "Type: message"}: the row fails, it is
# not errored. SystemExit and signals are not caught: they end the process, as they would anywhere.

require "json"

module ToolConformance
  PROTOCOL_VERSION = 1
  # What compile or register raise when they crash rather than refuse (a stack overflow on deep
  # nesting, a typo). NoMethodError is a NameError.
  CRASHES = [SystemStackError, NoMemoryError, NameError].freeze

  # The reply to a crash inside the implementation: its type and message, one line, no backtrace.
  def self.threw(error)
    { "threw" => "#{error.class.name}: #{text(error)}".tr("\n", " ") }
  end

  # An exception's own message, without the code snippet error_highlight and did_you_mean add to a
  # NameError's message (they keep the undecorated text as original_message).
  def self.text(error)
    (error.respond_to?(:original_message) ? error.original_message : error.message).to_s
  end

  # Runs one call into the implementation. refuse: true for compile and register, whose raise is a
  # refusal ({ok: false, error}); everything else they raise, and all that the others raise, is a crash.
  def self.guard(refuse: false)
    yield
  rescue SystemExit, SignalException
    raise
  rescue *CRASHES => e
    threw(e)
  rescue StandardError => e
    refuse ? { "ok" => false, "error" => e.message.to_s } : threw(e)
  rescue Exception => e # rubocop:disable Lint/RescueException -- SystemStackError's kin: a crash
    threw(e)
  end

  # The protocol's stream, kept apart: a copy of fd 1 takes the replies, then fd 1 and $stdout go
  # to stderr, so that what the implementation prints (at load, in a call, in a thread, in a child
  # process) is its output in the report, never a line of the protocol.
  def self.protocol_stream
    $stdout.flush
    replies = STDOUT.dup
    replies.binmode
    replies.sync = true
    STDOUT.reopen(STDERR)
    $stdout = $stderr
    replies
  end

  # The implementation's interface: a module, or the top-level methods and constants of its file.
  class Impl
    attr_reader :default_name

    def self.load(path, module_name = nil)
      before = Object.constants
      top_level_before = Object.private_method_defined?(:compile)
      Kernel.load(File.expand_path(path)) # top level, unwrapped: its methods and constants are global
      if module_name
        return new(Object.const_get(module_name), module_name)
      end
      # top-level methods the file defines come first: a module it merely loads is not the interface
      return new(nil, File.basename(path, ".rb")) if !top_level_before && Object.private_method_defined?(:compile)

      added = (Object.constants - before).reject { |c| Object.autoload?(c) } # never trigger an autoload
      found = added.map { |c| Object.const_get(c) }.select do |m|
        m.is_a?(Module) && m.respond_to?(:compile) && m.respond_to?(:new_registry)
      end
      return new(found.first, found.first.name) if found.size == 1

      raise ArgumentError, "#{path} defines no top-level compile and not one module with compile and " \
                           "new_registry (#{found.map(&:name).join(', ')}): name the module as the second argument"
    end

    def initialize(mod, default_name)
      @mod = mod
      @default_name = default_name
    end

    def call(method, *args)
      @mod ? @mod.public_send(method, *args) : TOPLEVEL_BINDING.receiver.send(method, *args)
    end

    def const(name, default = nil)
      holder = @mod || Object
      holder.const_defined?(name) ? holder.const_get(name) : default
    end
  end

  # What the adapter reads from the implementation's objects: a method, or a Hash member.
  def self.field(object, name)
    return object[name.to_s] if object.is_a?(Hash) && object.key?(name.to_s)
    return object[name.to_sym] if object.is_a?(Hash)
    object.public_send(name)
  end

  # A JSON-ready Hash with string keys (a result's message, a definition).
  def self.string_keys(hash)
    hash.to_h.transform_keys(&:to_s)
  end

  class Adapter
    def initialize(impl)
      @impl = impl
      @registry = impl.call(:new_registry, nil)
      @runs = {}
      @runs_lock = Mutex.new # tools may run on several threads at once (concurrently)
    end

    def tool_fn(name, behavior)
      tool_error = @impl.const(:ToolError, RuntimeError)
      kind = behavior["kind"]
      lambda do |arguments, cancel = nil|
        @runs_lock.synchronize { (@runs[name] ||= []) << arguments }
        case kind
        when "echo" then arguments
        when "reply" then behavior["text"]
        when "fail" then raise tool_error, behavior["text"]
        when "panic"
          value = behavior["value"]
          raise RuntimeError, (value.is_a?(String) ? value : JSON.generate(value))
        when "sleep"
          seconds = behavior["ms"] / 1000.0
          if cancel.respond_to?(:wait)
            raise RuntimeError, "cancelled" if cancel.wait(seconds)
          else
            sleep(seconds) # a Thread#raise or Timeout.timeout from the registry interrupts it
          end
          behavior["text"]
        else # hang: until the registry gives up on it
          cancel.respond_to?(:wait) ? cancel.wait : sleep
          raise RuntimeError, "cancelled"
        end
      end
    end

    def handle(req)
      cmd = req["cmd"]
      case cmd
      when "start"
        { "ready" => true, "version" => PROTOCOL_VERSION,
          "implementation" => { "name" => @impl.const(:NAME, @impl.default_name).to_s, "language" => "ruby",
                                "version" => @impl.const(:VERSION, "").to_s },
          "profiles" => Array(@impl.const(:PROFILES, ["ag02"])).map(&:to_s),
          "capabilities" => %w[validate registry concurrency] }
      when "compile", "validate"
        schema = nil
        refused = ToolConformance.guard(refuse: true) do
          schema = @impl.call(:compile, req["schema"])
          nil
        end
        return refused if refused
        return { "ok" => true } if cmd == "compile"

        ToolConformance.guard do
          errors = schema.validate_json(req["instance"]).map do |e|
            { "path" => ToolConformance.field(e, :path), "message" => ToolConformance.field(e, :message) }
          end
          { "ok" => true, "errors" => errors }
        end
      when "registry"
        @registry = @impl.call(:new_registry, req["timeoutMs"])
        { "ok" => true }
      when "register", "names", "definitions"
        registry_request(req)
      when "call"
        @runs = {}
        registry_request(req).merge("runs" => @runs)
      when "concurrently"
        concurrently(req["requests"])
      when "stop"
        { "ok" => true }
      else
        { "errored" => true, "message" => "unknown command #{JSON.generate(cmd)}" }
      end
    end

    # One thread per request, all released at once by a start signal, as a parallel agent loop would.
    def concurrently(requests)
      @runs = {}
      replies = Array.new(requests.size)
      gate = Queue.new
      threads = requests.each_with_index.map do |request, i|
        Thread.new do
          gate.pop
          replies[i] = begin
            registry_request(request)
          rescue StandardError => e # a bug in the adapter: the whole request is errored
            { "errored" => true, "message" => "#{e.class.name}: #{ToolConformance.text(e)}" }
          end
        end
      end
      requests.size.times { gate << true }
      threads.each(&:join)
      broken = replies.find { |r| r["errored"] }
      broken || { "replies" => replies, "runs" => @runs }
    end

    # A register, names, definitions or call request's reply, without runs.
    def registry_request(req)
      cmd = req["cmd"]
      registry = @registry
      if cmd == "register"
        tool = req["tool"]
        fn = tool_fn(tool["name"], tool["behavior"])
        return ToolConformance.guard(refuse: true) do
          registry.register(@impl.call(:new_tool, tool["name"], tool["description"], tool["parameters"], fn))
          { "ok" => true }
        end
      end
      raise ArgumentError, "unknown command #{JSON.generate(cmd)}" unless %w[names definitions call].include?(cmd)

      call = req["call"]
      ToolConformance.guard do # names, definitions and call never raise
        case cmd
        when "names" then { "names" => registry.names.to_a }
        when "definitions"
          { "definitions" => registry.definitions.map { |d| ToolConformance.string_keys(d) } }
        else
          result = registry.call(call["id"], call["name"], call["arguments"])
          { "result" => { "callId" => result.call_id, "name" => result.name, "content" => result.content,
                          "isError" => result.is_error },
            "message" => ToolConformance.string_keys(result.message) }
        end
      end
    end
  end

  def self.main(argv)
    unless [1, 2].include?(argv.size)
      warn "usage: adapter.rb IMPLEMENTATION.rb [ModuleName]"
      return 2
    end
    replies = protocol_stream # before the load: a puts at load time is output, not a reply
    adapter = Adapter.new(Impl.load(argv[0], argv[1]))
    STDIN.binmode
    while (line = STDIN.gets)
      line = line.force_encoding(Encoding::UTF_8)
      next if line.strip.empty?

      seq = nil
      cmd = nil
      reply = begin
        req = JSON.parse(line)
        raise TypeError, "a request is a JSON object" unless req.is_a?(Hash)

        seq = req["seq"]
        cmd = req["cmd"]
        adapter.handle(req)
      rescue StandardError => e # a bug in the adapter, outside the implementation's calls: errored, we go on
        { "errored" => true, "message" => "#{e.class.name}: #{ToolConformance.text(e)}" }
      end
      text = begin
        JSON.generate({ "seq" => seq }.merge(reply))
      rescue StandardError => e # e.g. a reply string that is not UTF-8
        JSON.generate({ "seq" => seq, "errored" => true, "message" => "#{e.class.name}: #{e.message}".scrub })
      end
      replies.write(text, "\n")
      return 0 if cmd == "stop"
    end
    0 # end of input: the harness is gone
  end
end

exit(ToolConformance.main(ARGV)) if $PROGRAM_NAME == __FILE__
