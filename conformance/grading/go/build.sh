#!/bin/sh
# Builds a Go submission's adapter for tool-conformance: run by `grade --build` in the submission's
# folder (its copy, under --sandbox bwrap). It finds the student's module (go/go.mod, as the course
# lays it out, or a go.mod at the top), puts the Go adapter (main.go: beside this script in a
# grader's kit, else the package's conformance/adapters/go/main.go) into it, and builds ./adapter,
# with the race detector when the machine has a C compiler for it (the registry must be safe for
# concurrent use: a race then fails a concurrency row). Students run it the same way.
# Exit 0: ./adapter is built. Exit 1: the student's code does not build (the log says why).
set -u
kit=$(dirname "$0")
here=$(pwd)

adapter=$kit/main.go
[ -f "$adapter" ] || adapter=$kit/../../adapters/go/main.go
if [ ! -f "$adapter" ]; then
  echo "grading kit: no main.go beside $0; copy tool-conformance's conformance/adapters/go/main.go there" >&2
  exit 3
fi

# the module: go/go.mod first, then ./go.mod, then one a folder or two down
module=
for dir in go . */ */*/; do
  if [ -f "$dir/go.mod" ]; then module=${dir%/}; break; fi
done
if [ -z "$module" ]; then
  echo "no go.mod found (looked in go/, ., and two levels of subfolders): the submission is not a Go module" >&2
  exit 1
fi
path=$(sed -n 's/^module[[:space:]]*//p' "$module/go.mod" | head -n 1 | sed 's/[[:space:]]*\/\/.*$//; s/^"\(.*\)"$/\1/; s/[[:space:]]*$//')
if [ -z "$path" ]; then
  echo "$module/go.mod has no module line" >&2
  exit 1
fi
echo "module $path in $module/"

# the adapter, inside the module so that it can import the student's packages (tinyllm/agent/tool, …/types)
target="$module/cmd/tool-conformance-adapter"
mkdir -p "$target"
sed "s#\"tinyllm/#\"$path/#" "$adapter" > "$target/main.go"

# offline, this Go only, no VCS stamping (the sandbox has no git)
GOTOOLCHAIN=local GOPROXY=off GOWORK=off GOFLAGS=-buildvcs=false
export GOTOOLCHAIN GOPROXY GOWORK GOFLAGS
: "${GOCACHE:=${TMPDIR:-/tmp}/go-cache}"
: "${GOPATH:=${TMPDIR:-/tmp}/go-path}"
export GOCACHE GOPATH

cd "$module" || exit 1
if command -v gcc >/dev/null 2>&1 && [ "$(go env CGO_ENABLED)" = 1 ]; then
  echo "go build -race (a data race makes a concurrency row fail)"
  if CGO_ENABLED=1 go build -race -o "$here/adapter" ./cmd/tool-conformance-adapter; then exit 0; fi
  # a race build can fail for the machine's sake (no race runtime for this platform): try without
  echo "the race build failed; trying without -race" >&2
  if go build -o "$here/adapter" ./cmd/tool-conformance-adapter; then
    echo "WARNING: built WITHOUT the race detector (the race build failed above, the plain one did not): a data race goes unseen" >&2
    exit 0
  fi
  exit 1
fi
echo "WARNING: built WITHOUT the race detector: no C compiler (gcc) or cgo is off; a data race goes unseen" >&2
exec go build -o "$here/adapter" ./cmd/tool-conformance-adapter
