#!/usr/bin/env bash
# Makes the Debian base image the Containerfile builds on, from Debian's packages alone: a minimal
# bookworm (debootstrap --variant=minbase, from debootstrap's default mirror, with the machine's
# keyring) imported into podman as localhost/opamp-fleet-server-base:bookworm. No image registry is
# involved. Needs root, debootstrap and podman. An image already present is kept (--force remakes it).
#   bash tools/container/base.sh [--force]
set -euo pipefail
image=${BASE_IMAGE:-localhost/opamp-fleet-server-base:bookworm}
suite=bookworm
if [ "${1:-}" != "--force" ] && podman image exists "$image"; then
  echo "base image $image: present"
  exit 0
fi
rootfs=$(mktemp -d /var/tmp/opamp-fleet-server-base.XXXXXX)
trap 'rm -rf "$rootfs"' EXIT
started=$(date +%s)
echo "base image $image: debootstrap --variant=minbase $suite"
debootstrap --variant=minbase "$suite" "$rootfs" >"$rootfs.log" 2>&1 || {
  tail -n 30 "$rootfs.log" >&2
  rm -f "$rootfs.log"
  exit 1
}
rm -f "$rootfs.log"
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
tar -C "$rootfs" -c . | podman import \
  --change 'CMD ["/bin/bash"]' \
  --change "LABEL org.opencontainers.image.title=debian-$suite-minbase" \
  --quiet - "$image" >/dev/null
echo "base image $image: made in $(($(date +%s) - started)) s"
