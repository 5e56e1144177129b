#!/bin/sh
# Builds the gojsonschema adapter OFFLINE into implementations/.build/go-gojsonschema/adapter.
# Run from implementations/ (sh go-gojsonschema/build.sh); idempotent: rerun it at will.
#
# Why GOPATH mode (GO111MODULE=off): Debian installs the library as plain source under
# /usr/share/gocode/src, and its dependencies gojsonpointer and gojsonreference there have no
# go.mod, so a module build would need a `replace` for each plus the library's test-only
# requirement (testify) in its go.mod graph. In GOPATH mode the import paths simply resolve to
# /usr/share/gocode/src/github.com/xeipuuv/..., and no network or module proxy is ever asked.
# Our own packages keep the seed's import paths (tinyllm/agent/tool, tinyllm/agent/types): a
# symlink <build>/gopath/src/tinyllm -> go-gojsonschema puts them on the GOPATH, so the
# template's import lines need no change.
set -eu
case "$0" in */*) here=${0%/*} ;; *) here=. ;; esac
cd "$here/.." # implementations/, wherever this was started from

die() { echo "go-gojsonschema/build.sh: $*" >&2; exit 1; }

command -v go >/dev/null 2>&1 || die "go not found (Debian: apt-get install golang-go)"
pkg=golang-github-xeipuuv-gojsonschema-dev
status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
[ "$status" = "install ok installed" ] || die "Debian package $pkg is not installed (apt-get install $pkg)"
gocode=/usr/share/gocode
for dep in gojsonschema gojsonpointer gojsonreference; do
	[ -d "$gocode/src/github.com/xeipuuv/$dep" ] || die "$gocode/src/github.com/xeipuuv/$dep is missing (apt-get install $pkg)"
done

# The library has no version constant: the Debian package's version, e.g. 1.2.0-3, read now and
# compiled in; the handshake reports its upstream part (no epoch "N:", no Debian revision "-3").
debver=$(dpkg-query -W -f='${Version}' "$pkg")
upstream=${debver#*:}
upstream=${upstream%-*}

out=.build/go-gojsonschema
mkdir -p "$out/gopath/src/adapter"
ln -sfn "$PWD/go-gojsonschema" "$out/gopath/src/tinyllm"

# The adapter is the Go template itself, copied here with its one ADJUST line for this library:
# the name, and the version compiled in below. Nothing else of the template changes.
template=../conformance/adapters/go/main.go
[ -f "$template" ] || die "$template is missing"
adjusted='reply{"name": "gojsonschema", "language": "go", "version": tool.LibraryVersion}'
sed "s|reply{\"name\": \"tinyllm\", \"language\": \"go\", \"version\": \"0.1.0\"}|$adjusted|" "$template" > "$out/gopath/src/adapter/main.go"
grep -q 'tool.LibraryVersion' "$out/gopath/src/adapter/main.go" || die "the template's implementation line has changed: adjust build.sh"

GO111MODULE=off GOFLAGS= GOPROXY=off GOTOOLCHAIN=local \
	GOPATH="$PWD/$out/gopath:$gocode" GOCACHE="${GOCACHE:-/tmp/go-gojsonschema-gocache}" \
	go build -o "$out/adapter" -ldflags "-X tinyllm/agent/tool.LibraryVersion=$upstream" adapter

echo "built $out/adapter (gojsonschema $upstream, Debian $pkg $debver)" >&2
