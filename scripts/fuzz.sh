#!/usr/bin/env bash
# Runs each fuzz target of issue 11 for FUZZTIME (default 30s), one
# `go test -fuzz` per target, and stops at the first finding (the failing
# input is then under the package's testdata/fuzz/, to commit as a
# regression seed once fixed). Prints each target's execution rate, and
# fails a target that ran no executions (a name that matches no target, a
# fuzz function that skips), which go test passes.
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime=${FUZZTIME:-30s}
# Minimizing each new corpus entry may otherwise take a minute of a 30 s run.
# The budget is a count of executions, not a time: when a minimization uses
# up a time budget, Go's coordinator gives up waiting for the answer (its
# deadline starts before the worker's) and kills the worker (internal/fuzz
# worker.minimize), so those executions are never counted and the next
# input waits for a new worker process. At 1s that killed a worker every
# couple of seconds and hid most of the work of the slower targets
# (FuzzExtract 320-440/s at 1s against 1,160-1,490/s at 1000x, run after run);
# a count ends the minimization normally.
minimize=${FUZZMINIMIZETIME:-1000x}

# The targets issue 11 names, FuzzCheapKeys (the rewrite of every chart's
# templates before Helm parses them, render/internal/helmkeys) and FuzzDeclaresKind
# (which Kustomize builds are traced, render/located.go), FuzzDecode (the form
# documents cross from a worker and sit in the render cache in,
# render/internal/wiredoc), FuzzMemoFile (the render cache's file digests,
# render/internal/digestmemo), FuzzCacheEntry (the render cache's entry
# files, render/cache), FuzzRewrite (resource files as krusty reads
# them: CRD stubs and file annotations, render/internal/kustread),
# FuzzValidDigest (a chart index's digest before it names a cache file,
# render/internal/fetch, issue 31), FuzzInitConfig and FuzzApplyNames (the
# .capreport.yaml init and calibrate write: any autoscaler, namespace,
# file or chart name reads back as exactly the entry meant, issue 31),
# FuzzReadAnswer (calibrate's reader of Prometheus answers, from any
# server: within its byte, series, sample, label, string and nesting
# bounds, and the series client_golang read from the same answer,
# calibrate/answer.go, issue 31), FuzzElideNumbers (the report
# reader's check of timelines outside the schema validator: any value in
# any timeline is judged as the validator judges it, report/elide.go,
# issue 31), FuzzPrintYAML (the text postBuild substitution works on:
# any decoded document prints byte for byte as sigs.k8s.io/yaml.Marshal,
# render/internal/fluxsubst, issue 29), FuzzSubstituteFast (substituting
# string by string gives what Flux's whole printed text gives, on any
# document and values, render/internal/fluxsubst/fast.go, issue 29);
# `scripts/fuzz.sh ./config:FuzzParse ...` runs others (every target's
# seeds also run in go test ./...).
targets=(
  "./render/internal/valuesschema FuzzSchemaRefs"
  "./render/internal/helmkeys FuzzCheapKeys"
  "./render FuzzDeclaresKind"
  "./render/internal/wiredoc FuzzDecode"
  "./render/internal/digestmemo FuzzMemoFile"
  "./render/cache FuzzCacheEntry"
  "./render/internal/repourl FuzzRepoIdentity"
  "./render/internal/kustscan FuzzKustomizeRewrite"
  "./render/internal/kustread FuzzRewrite"
  "./render/internal/repofs FuzzCheckTree"
  "./config FuzzRanges"
  "./cmd/capreport/internal/initcmd FuzzInitConfig"
  "./calibrate FuzzApplyNames"
  "./calibrate FuzzReadAnswer"
  "./analyze FuzzAnnotations"
  "./analyze FuzzExtract"
  "./report/github FuzzOwnMarked"
  "./report/artifact FuzzUntrustedReport"
  "./report/artifact FuzzUntrustedDocument"
  "./report/merge FuzzMerge"
  "./render/internal/fetch FuzzValidDigest"
  "./report FuzzElideNumbers"
  "./render/internal/fluxsubst FuzzPrintYAML"
  "./render/internal/fluxsubst FuzzSubstituteFast"
)
if [ $# -gt 0 ]; then
  targets=()
  for a in "$@"; do targets+=("${a%%:*} ${a##*:}"); done
fi

# rate_between FIRST LAST: executions per second between two progress lines.
rate_between() {
  local e0 t0 e1 t1
  e0=$(sed -nE 's/.*execs: ([0-9]+).*/\1/p' <<<"$1"); t0=$(sed -nE 's/.*elapsed: ([0-9]+)s.*/\1/p' <<<"$1")
  e1=$(sed -nE 's/.*execs: ([0-9]+).*/\1/p' <<<"$2"); t1=$(sed -nE 's/.*elapsed: ([0-9]+)s.*/\1/p' <<<"$2")
  if [ -n "$e0" ] && [ -n "$e1" ] && [ -n "$t0" ] && [ -n "$t1" ] && [ "$t1" -gt "$t0" ]; then
    echo $(((e1 - e0) / (t1 - t0)))
  else
    echo 0
  fi
}

for t in "${targets[@]}"; do
  read -r pkg name <<<"$t"
  log=$(mktemp)
  start=$(date +%s)
  ok=0
  for attempt in 1 2; do
    if go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimize" "$pkg" >"$log" 2>&1; then
      ok=1
      break
    fi
    # Go's coordinator can read its own expired -fuzztime deadline before
    # the workers' context ends and then fails the run with nothing but
    # "context deadline exceeded" (internal/fuzz; seen here on FuzzRanges
    # at the 30th second). That is no finding: no input is written. Run
    # the target once more; any real finding writes its input and fails.
    if grep -q 'Failing input written' "$log" || ! grep -q 'context deadline exceeded' "$log"; then
      break
    fi
    echo "fuzz: $name: the engine's end-of-run deadline race, no input found; running it again" >&2
  done
  if [ "$ok" != 1 ]; then
    cat "$log"
    echo "fuzz: $name ($pkg) found a failing input; see above" >&2
    rm -f "$log"
    exit 1
  fi
  # Progress lines: "fuzz: elapsed: 30s, execs: 123456 (4100/sec), ...".
  # The overall rate counts the pass over the saved corpus (the engine
  # ships its whole coverage map per saved input); the steady rate is from
  # the first progress line after that pass to the last.
  lines=$(grep -E 'elapsed: [0-9]+s, execs: [0-9]+' "$log" || true)
  rate=$(rate_between "$(head -1 <<<"$lines")" "$(tail -1 <<<"$lines")")
  overall=$(rate_between "fuzz: elapsed: 0s, execs: 0" "$(tail -1 <<<"$lines")")
  execs=$(sed -nE '$s/.*execs: ([0-9]+).*/\1/p' <<<"$lines")
  # go test passes a -fuzz pattern that matches no target ("no fuzz tests
  # to fuzz") and a target that skips; either tested nothing.
  if [ "${execs:-0}" -eq 0 ]; then
    cat "$log"
    echo "fuzz: $name ($pkg) ran no executions in $fuzztime; see above" >&2
    rm -f "$log"
    exit 1
  fi
  printf '%-22s %-24s %8s execs %6s/s steady %6s/s overall  (%ss with build)\n' "$pkg" "$name" "${execs:-0}" "$rate" "$overall" "$(($(date +%s) - start))"
  rm -f "$log"
done
