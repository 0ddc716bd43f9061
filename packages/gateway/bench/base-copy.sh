#!/usr/bin/env bash
# Copies this checkout's built packages (package.json and dist of each) into DEST, for
# `BASE=DEST node --import tsx bench/hop-cpu.ts` run later from another commit's build: each copy
# gets a node_modules whose @toolplane links point at the other copies and whose other links
# point where this checkout's do, and the gateway gets its src/testing/serve-gateway.ts.
# Usage (from packages/gateway, after `pnpm turbo run build --filter=@toolplane/gateway...`):
#   bash bench/base-copy.sh DEST
set -euo pipefail
dest=${1:?usage: base-copy.sh DEST}
root=$(cd "$(dirname "$0")/../../.." && pwd)
rm -rf "$dest" && mkdir -p "$dest" && dest=$(cd "$dest" && pwd)
for pkg in "$root"/packages/*/; do
  name=$(basename "$pkg")
  [ -d "$pkg/dist" ] || continue
  mkdir -p "$dest/$name" && cp -r "$pkg/dist" "$pkg/package.json" "$dest/$name/"
done
mkdir -p "$dest/gateway/src/testing"
cp "$root/packages/gateway/src/testing/serve-gateway.ts" "$dest/gateway/src/testing/"
for copy in "$dest"/*/; do
  name=$(basename "$copy")
  from="$root/packages/$name/node_modules"
  [ -d "$from" ] || continue
  mkdir -p "$copy/node_modules"
  for entry in "$from"/* "$from"/@*/*; do
    [ -e "$entry" ] || continue
    rel=${entry#"$from"/}
    case "$rel" in .bin) continue ;; @*/*) mkdir -p "$copy/node_modules/$(dirname "$rel")" ;; @*) continue ;; esac
    own=${rel#@toolplane/}
    if [[ "$rel" == @toolplane/* && -d "$dest/$own" ]]; then
      ln -sfn "$dest/$own" "$copy/node_modules/$rel"
    else
      ln -sfn "$(realpath "$entry")" "$copy/node_modules/$rel"
    fi
  done
done
echo "copied the built packages to $dest"
