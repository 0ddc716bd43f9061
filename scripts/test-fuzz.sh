#!/usr/bin/env bash
# `pnpm test:fuzz`: the property tests (every test file that imports fast-check) on random seeds,
# where `pnpm test` replays one fixed seed. A counterexample found here is kept as an explicit
# case beside its property. Extra arguments go to vitest (e.g. a file filter).
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(grep -rlE --include='*.test.ts' --exclude-dir=node_modules \
  "from 'fast-check'" packages examples | sort)
export TEST_FUZZ=1
exec pnpm exec vitest run --project parallel "${files[@]}" "$@"
