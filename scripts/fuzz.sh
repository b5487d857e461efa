#!/usr/bin/env bash
# Runs each fuzz target of issue 11 for FUZZTIME (default 30s), one
# `go test -fuzz` per target, and stops at the first finding (the failing
# input is then under the package's testdata/fuzz/, to commit as a
# regression seed once fixed). Prints each target's execution rate.
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime=${FUZZTIME:-30s}
# Minimizing each new corpus entry may otherwise take a minute of a 30 s run.
minimize=${FUZZMINIMIZETIME:-5s}

# The targets issue 11 names; `scripts/fuzz.sh ./config:FuzzParse ...` runs
# others (every target's seeds also run in go test ./...).
targets=(
  "./render FuzzSchemaRefs"
  "./render FuzzKustomizeRewrite"
  "./render FuzzCheckTree"
  "./config FuzzRanges"
  "./analyze FuzzAnnotations"
  "./analyze FuzzExtract"
  "./report/github FuzzOwnMarked"
  "./cmd/capreport FuzzUntrustedReport"
  "./cmd/capreport FuzzUntrustedDocument"
  "./cmd/capreport FuzzMerge"
)
if [ $# -gt 0 ]; then
  targets=()
  for a in "$@"; do targets+=("${a%%:*} ${a##*:}"); done
fi

for t in "${targets[@]}"; do
  read -r pkg name <<<"$t"
  log=$(mktemp)
  start=$(date +%s)
  if ! go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimize" "$pkg" >"$log" 2>&1; then
    cat "$log"
    echo "fuzz: $name ($pkg) found a failing input; see above" >&2
    rm -f "$log"
    exit 1
  fi
  # The last progress line: "fuzz: elapsed: 30s, execs: 123456 (4100/sec), ..."
  last=$(grep -E 'elapsed: [0-9]+s, execs: [0-9]+' "$log" | tail -1 || true)
  execs=$(sed -E 's/.*execs: ([0-9]+).*/\1/' <<<"$last")
  secs=$(sed -E 's/.*elapsed: ([0-9]+)s.*/\1/' <<<"$last")
  rate=0
  if [ -n "$execs" ] && [ -n "$secs" ] && [ "$secs" -gt 0 ]; then rate=$((execs / secs)); fi
  printf '%-22s %-24s %8s execs %6s/s  (%ss with build)\n' "$pkg" "$name" "${execs:-0}" "$rate" "$(($(date +%s) - start))"
  rm -f "$log"
done
