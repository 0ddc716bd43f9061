#!/usr/bin/env bash
# Packs the package in the current directory the way `pnpm publish` would (publishConfig
# applied) and checks the tarball with publint --strict and attw.
set -euo pipefail
rm -rf .pack
mkdir -p .pack
pnpm pack --pack-destination .pack >/dev/null
tarball=$(ls .pack/*.tgz)
publint run "$tarball" --strict
attw "$tarball" --profile esm-only --format table-flipped
rm -rf .pack
