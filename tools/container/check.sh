#!/usr/bin/env bash
# Proves the Helm chart and the container image (docs/deploy.md), as .ci/run does:
#   1. the chart passes `helm lint`, and `helm template` with values.yaml and each examples/*.yaml
#      validates against the Kubernetes API types (kubecheck); every values key is in the values
#      tables; a replica count without PostgreSQL and a misspelled values key are refused, and
#      kubecheck refuses a manifest with an unknown field (so it can fail);
#   2. the Debian base image (tools/container/base.sh) and the project's image build; the image is
#      within 250 MB and pins the Node.js of package-lock.json;
#   3. the image runs as the chart runs it (tools/container/prove.ts).
# Part 2 and 3 are skipped, saying why, when podman cannot run a container on this machine.
# Helm and kubecheck are built from the Go module proxy (the toolchain's configured proxy) into
# .peers/tools (PEERS_DIR), once per version. Needs root (podman, debootstrap) and Go.
#   bash tools/container/check.sh
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"
chart=deploy/helm/opamp-fleet-server
tools="${PEERS_DIR:-$root/.peers}/tools"
HELM_VERSION=v3.22.0
# The Kubernetes release whose API types kubecheck is built with (k8s.io/api v0.37 in its go.mod).
KUBE_VERSION=1.37.0
MAX_IMAGE_BYTES=$((250 * 1000 * 1000))
image=localhost/opamp-fleet-server:check
node="$root/node_modules/.bin/node"
export CONTAINERS_CONF="$here/containers.conf"
export GOFLAGS=-buildvcs=false CGO_ENABLED=0

log() { printf '[container %s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }
failures=0
check() { # check NAME COMMAND...: runs one check and counts a failure
  local name=$1 started
  shift
  started=$(date +%s)
  log "$name"
  if "$@"; then log "$name: ok ($(($(date +%s) - started)) s)"; else
    log "$name: FAILED"
    failures=$((failures + 1))
  fi
}

build_helm() {
  helm="$tools/helm-$HELM_VERSION"
  [ -x "$helm" ] && return 0
  mkdir -p "$tools"
  GOBIN="$tools/.gobin" go install -trimpath -ldflags='-s -w' "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" &&
    mv "$tools/.gobin/helm" "$helm"
}

build_kubecheck() { # named after its sources, so that an edit rebuilds it
  local sum
  sum=$(cat "$here"/kubecheck/go.mod "$here"/kubecheck/go.sum "$here"/kubecheck/*.go | sha256sum | cut -c1-12)
  kubecheck="$tools/kubecheck-$sum"
  [ -x "$kubecheck" ] && return 0
  mkdir -p "$tools"
  (cd "$here/kubecheck" && go build -mod=readonly -trimpath -ldflags='-s -w' -o "$kubecheck" .)
}

chart_checks() {
  local values ok=0
  for values in "" "$chart"/examples/*.yaml; do
    log "chart with ${values:-values.yaml}"
    "$helm" lint --strict --kube-version "$KUBE_VERSION" "$chart" ${values:+-f "$values"} | grep -v '^\[INFO\]' || ok=1
    "$helm" template fleet "$chart" --kube-version "$KUBE_VERSION" ${values:+-f "$values"} | "$kubecheck" || ok=1
  done
  "$node" "$here/valuesDocumented.ts" "$chart" "$chart/README.md" docs/deploy.md || ok=1
  if "$helm" template fleet "$chart" --kube-version "$KUBE_VERSION" --set replicaCount=2 >/dev/null 2>&1; then
    echo "two replicas without database.host rendered: the chart should refuse them"
    ok=1
  fi
  if "$helm" template fleet "$chart" --kube-version "$KUBE_VERSION" --set replicaCont=2 >/dev/null 2>&1; then
    echo "a misspelled values key rendered: values.schema.json should refuse it"
    ok=1
  fi
  if printf 'apiVersion: v1\nkind: Service\nmetadata: {name: x}\nspec: {sesionAffinity: None}\n' |
    "$kubecheck" >/dev/null; then
    echo "kubecheck accepted an unknown field"
    ok=1
  fi
  return $ok
}

install_podman() {
  command -v podman >/dev/null && command -v runc >/dev/null && command -v debootstrap >/dev/null && return 0
  log "installing podman, runc and debootstrap (Debian packages)"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman runc debootstrap >/dev/null
}

node_pinned() { # the Containerfile's Node.js is the one package-lock.json pins for the project
  local want have
  want=$("$node" -p "require('./package-lock.json').packages['node_modules/node'].version")
  have=$(sed -n 's/^ARG NODE_VERSION=//p' Containerfile)
  [ "$want" = "$have" ] || { echo "Containerfile pins Node.js $have, package-lock.json $want"; return 1; }
}

build_image() {
  local secret=() cafile
  # The npm registry as this machine reaches it: through the CA bundle npm is configured with.
  cafile=$(npm config get cafile 2>/dev/null)
  [ -n "$cafile" ] && [ "$cafile" != null ] && [ -s "$cafile" ] && secret=(--secret "id=build-ca,src=$cafile")
  podman build --quiet --format docker --network host "${secret[@]}" \
    ${BASE_IMAGE:+--build-arg "BASE_IMAGE=$BASE_IMAGE"} \
    --build-arg "REVISION=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)" \
    --build-arg "CREATED=$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
    -t "$image" -f Containerfile . >/dev/null
}

image_size() {
  local bytes
  bytes=$(podman image inspect "$image" --format '{{.Size}}')
  log "image size: $((bytes / 1000 / 1000)) MB"
  [ "$bytes" -le "$MAX_IMAGE_BYTES" ] || { echo "image is $bytes bytes, above 250 MB"; return 1; }
}

compile_cache_used() { # the image's user loads every module from the cache made at build time
  local out accepted rejected
  out=$(podman run --rm --network host --read-only --health-interval disable -e NODE_DEBUG_NATIVE=COMPILE_CACHE \
    --entrypoint node "$image" tools/container/warmCompileCache.ts 2>&1)
  accepted=$(grep -c 'was accepted' <<<"$out")
  rejected=$(grep -Ec 'was rejected|no cache|cache miss' <<<"$out")
  log "compile cache: $accepted modules read from it, $rejected compiled anew"
  [ "$accepted" -gt 100 ] && [ "$rejected" = 0 ]
}

agent_binary() { # the opamp-go agent `npm run peers` built (its name as tools/peers/build.sh gives it)
  local sources
  # shellcheck source=../peers/versions.env
  . "$root/tools/peers/versions.env"
  sources=$(cd "$root/tools/peers/agent" && find . -maxdepth 1 \( -name '*.go' -o -name go.mod -o -name go.sum \) |
    sed 's|^\./||' | LC_ALL=C sort | xargs cat | sha256sum | cut -c1-12)
  agent="${PEERS_DIR:-$root/.peers}/bin/opamp-agent-$OPAMP_GO_VERSION-$sources"
  [ -x "$agent" ] || { echo "the opamp-go agent is not built ($agent; run npm run peers)"; return 1; }
}

prove() { "$node" "$here/prove.ts" "$image" "$chart" "$helm" "$agent" "$KUBE_VERSION"; }

check "podman, runc and debootstrap" install_podman
# Podman that cannot even report on itself cannot run containers here: the container part is skipped.
podman_works=1
if ! why=$(podman info 2>&1 >/dev/null); then
  podman_works=0
else
  # The base image (debootstrap: network and disk) is made while Helm and kubecheck compile (CPU).
  base_log=$(mktemp)
  bash "$here/base.sh" >"$base_log" 2>&1 &
  base_pid=$!
fi

check "build helm $HELM_VERSION" build_helm
check "build kubecheck" build_kubecheck
if [ -x "${helm:-}" ] && [ -x "${kubecheck:-}" ]; then
  check "chart: helm lint, helm template | kubecheck" chart_checks
else
  log "chart checks not run: helm or kubecheck did not build"
  failures=$((failures + 1))
fi

skip() {
  log "SKIPPED the image build and the container proof: podman cannot run containers on this machine:"
  printf '%s\n' "$1" | tail -n 5
}
base=${BASE_IMAGE:-localhost/opamp-fleet-server-base:bookworm}
if [ "$podman_works" = 0 ]; then
  skip "$why"
else
  base_image() { wait "$base_pid"; }
  check "base image (tools/container/base.sh)" base_image
  cat "$base_log" && rm -f "$base_log"
  if ! podman image exists "$base" 2>/dev/null; then
    log "the image build and the container proof not run: there is no base image $base (above)"
  elif ! why=$(podman run --rm --network host "$base" true 2>&1); then
    skip "$why"
  else
    check "Containerfile pins package-lock's Node.js" node_pinned
    check "podman build" build_image
    check "image within 250 MB" image_size
    check "compile cache warm for the image's user" compile_cache_used
    check "opamp-go agent built" agent_binary
    [ -n "${agent:-}" ] && [ -x "$agent" ] && check "the container as the chart runs it" prove
  fi
fi

log "$failures failed"
[ "$failures" = 0 ]
