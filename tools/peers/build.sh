#!/usr/bin/env bash
# Builds the real OpAMP peers the interop specs run (spec/interop/), from the Go module proxy with the
# machine's Go toolchain, into .peers/ (ignored). A peer whose binary for the pinned version exists is
# skipped, so later runs cost a second; the Go module and build caches make a rebuild cheaper too.
#   npm run peers            build what is missing
#   npm run peers -- --force rebuild all three
# Versions: tools/peers/versions.env (the one place they are pinned).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
# shellcheck source=versions.env
. "$here/versions.env"
out="${PEERS_DIR:-$root/.peers}"
bin="$out/bin"
work="$out/work"
force=0
[ "${1:-}" = "--force" ] && force=1
mkdir -p "$bin" "$work"

export GOFLAGS="-buildvcs=false"
export CGO_ENABLED=0

log() { printf '[peers %s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }

failures=0
build_peer() { # build_peer KEY NAME BINARY FUNCTION: runs FUNCTION unless BINARY exists, and times it
  local key=$1 name=$2 target=$3 fn=$4 started logfile="$out/failed/$1.log"
  if [ "$force" = 0 ] && [ -x "$target" ]; then
    log "$name: cached ($target)"
    return 0
  fi
  started=$(date +%s)
  log "$name: building"
  mkdir -p "$out/failed"
  rm -f "$out/failed/$key"
  # A failure is kept in .peers/failed/KEY: the interop specs quote it as the reason they fail.
  # (In the background and waited for, so that `set -e` holds inside: in an `if` it would not.)
  ("$fn" "$target") >"$logfile" 2>&1 &
  if wait $!; then
    log "$name: built in $(($(date +%s) - started)) s ($target)"
    rm -f "$logfile"
  else
    { echo "$name (pinned in tools/peers/versions.env) failed after $(($(date +%s) - started)) s:"
      tail -n 30 "$logfile"; } >"$out/failed/$key"
    cat "$out/failed/$key" >&2
    failures=$((failures + 1))
  fi
}

supervisor() { # the module's go.mod replaces its siblings with ../../ paths: drop them, build as is
  local target=$1 module=github.com/open-telemetry/opentelemetry-collector-contrib/cmd/opampsupervisor
  local dir src="$work/opampsupervisor-$OTELCOL_CONTRIB_VERSION"
  dir=$(go mod download -json "$module@$OTELCOL_CONTRIB_VERSION" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
  [ -n "$dir" ] || { echo "go mod download gave no directory for $module" >&2; return 1; }
  rm -rf "$src" && cp -r "$dir" "$src" && chmod -R u+w "$src"
  (
    cd "$src"
    awk '/^replace \(/{b=1;next} b&&/^\)/{b=0;next} b{print $1} /^replace [^(]/{print $2}' go.mod |
      while read -r path; do go mod edit -dropreplace="$path"; done
    ! grep -q '^replace' go.mod || { echo "replace lines left in $src/go.mod" >&2; exit 1; }
    go build -mod=mod -trimpath -ldflags='-s -w' -o "$target.tmp" .
  )
  mv "$target.tmp" "$target"
}

collector() { # the Collector builder writes the sources and builds them
  local target=$1 src="$work/otelcol-$OTELCOL_CORE_VERSION"
  go install "go.opentelemetry.io/collector/cmd/builder@$OTELCOL_CORE_VERSION"
  rm -rf "$src" && mkdir -p "$src"
  OTELCOL_CORE_VERSION=$OTELCOL_CORE_VERSION OTELCOL_CONTRIB_VERSION=$OTELCOL_CONTRIB_VERSION \
    OTELCOL_STABLE_VERSION=$OTELCOL_STABLE_VERSION OUT_DIR=$src \
    envsubst_manifest <"$here/manifest.yaml.in" >"$src/manifest.yaml"
  "$(go env GOPATH)/bin/builder" --config "$src/manifest.yaml" --ldflags='-s -w'
  mv "$src/otelcol-peers" "$target"
}

envsubst_manifest() { # ${VAR} and ${VAR#v} from the environment, without needing gettext
  local line
  while IFS= read -r line; do
    line=${line//'${OTELCOL_CORE_VERSION#v}'/${OTELCOL_CORE_VERSION#v}}
    line=${line//'${OTELCOL_CORE_VERSION}'/$OTELCOL_CORE_VERSION}
    line=${line//'${OTELCOL_CONTRIB_VERSION}'/$OTELCOL_CONTRIB_VERSION}
    line=${line//'${OTELCOL_STABLE_VERSION}'/$OTELCOL_STABLE_VERSION}
    line=${line//'${OUT_DIR}'/$OUT_DIR}
    printf '%s\n' "$line"
  done
}

hydra() { # Ory Hydra, the OpenID Provider the sign-in specs run (spec/e2e/oidc/). Its go.mod replaces
  # its API client with a directory the module zip does not ship: drop that one (the proxy serves the
  # client at the required version) and keep the replace of one module by another.
  local target=$1 module=github.com/ory/hydra/v2
  local dir src="$work/hydra-$HYDRA_VERSION"
  dir=$(go mod download -json "$module@$HYDRA_VERSION" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
  [ -n "$dir" ] || { echo "go mod download gave no directory for $module" >&2; return 1; }
  rm -rf "$src" && cp -r "$dir" "$src" && chmod -R u+w "$src"
  (
    cd "$src"
    awk '/^replace .* => \.\.?\//{print $2}' go.mod | while read -r path; do go mod edit -dropreplace="$path"; done
    go build -mod=mod -trimpath -ldflags='-s -w' -o "$target.tmp" .
  )
  mv "$target.tmp" "$target"
}

agent() { # the project's own agent on opamp-go's client library (tools/peers/agent)
  local target=$1
  (cd "$here/agent" && go build -mod=readonly -trimpath -ldflags='-s -w' -o "$target" .)
  find "$bin" -name 'opamp-agent-*' ! -name "$(basename "$target")" -delete # builds of older sources
}

command -v go >/dev/null || { echo "go is not on PATH: the interop peers need Go >= 1.25" >&2; exit 1; }
# The toolchain's configured proxies (go env GOPROXY: the machine's settings, never an address of
# our own), without a trailing `direct`: a module they do not serve fails at once instead of
# trying a VCS host. A GOPROXY that is `direct` or `off` alone is kept as the machine says.
goproxy=$(go env GOPROXY)
trimmed=$(printf '%s' "$goproxy" | sed -E 's/[,|]direct$//')
[ -n "$trimmed" ] && export GOPROXY="$trimmed"
log "$(go version); output in $out"
started=$(date +%s)
# The agent's binary is named after its sources as well, so that an edit to them rebuilds it
# (spec/interop/support/peers.ts computes the same name).
agent_sources=$(cd "$here/agent" && find . -maxdepth 1 \( -name '*.go' -o -name go.mod -o -name go.sum \) |
  sed 's|^\./||' | LC_ALL=C sort | xargs cat | sha256sum | cut -c1-12)
build_peer agent "opamp-go agent $OPAMP_GO_VERSION" "$bin/opamp-agent-$OPAMP_GO_VERSION-$agent_sources" agent
build_peer supervisor "opampsupervisor $OTELCOL_CONTRIB_VERSION" \
  "$bin/opampsupervisor-$OTELCOL_CONTRIB_VERSION" supervisor
build_peer hydra "Ory Hydra $HYDRA_VERSION" "$bin/hydra-$HYDRA_VERSION" hydra
build_peer collector "otelcol-peers $OTELCOL_CORE_VERSION" "$bin/otelcol-peers-$OTELCOL_CORE_VERSION" collector
if [ "$failures" != 0 ]; then
  log "$failures peer(s) failed after $(($(date +%s) - started)) s"
  exit 1
fi
log "all peers ready in $(($(date +%s) - started)) s"
