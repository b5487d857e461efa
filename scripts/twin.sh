#!/usr/bin/env bash
# twin.sh: the essays' falsification criteria, observed on a control plane
# built from genuine parts and set beside capreport's predictions.
#
# internal/twin (a module of its own, like internal/upstreamdiff) runs, on
# the loopback and in one test process: etcd v3.6 (embedded, as
# Kubernetes' own integration tests run it), kube-apiserver and
# kube-controller-manager of Kubernetes v1.34.0 (their test servers: the
# real server chains, flags and controllers; the controller manager runs
# the deployment, replicaset and horizontalpodautoscaling controllers),
# kwok v0.7.0 beside it as a process (the node, and pods that turn ready
# after their dead time), a metrics server behind the aggregator that
# serves the resource metrics API from the fluid model of the service
# (internal/twin/workload.go), and KEDA v2.19.0's operator and metrics
# adapter as processes (part 2's ScaledObjects, and the scale-from-zero
# cases), reading the model's backlog over HTTP with KEDA's metrics-api
# scaler. Each criterion's prediction is
# analyze/sim's for the same settings; the two are compared per criterion
# (docs/fidelity.md says how) and the table of docs/fidelity.md is
# rewritten from what was observed.
#
# Part 1 runs in real time (--size-compression 1), part 2 with every
# duration divided by 10 (--time-compression 10); the whole run takes
# about 20 minutes on a 2-core machine, plus a cold build of the control
# plane and kwok (about 10 minutes of CPU).
#
# Usage: scripts/twin.sh [--ci] [--no-docs] [--cases REGEXP]
#          [--size-compression N] [--time-compression N]
#   --ci       part 1 F1 and F4 (compressed twofold), part 2 F3, scale
#              from zero (what .ci/run runs, in about 7 minutes); the
#              document is left alone
#   --no-docs  print the table instead of rewriting docs/fidelity.md
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
cases= docs=1 size=1 timec=10
while [ $# -gt 0 ]; do
  case "$1" in
    --ci) cases='^(f1-3x|f1-5x|f4-3x-target-93|f3-d1-w300|f3-d1-w0|z-.*)$' docs= size=2 ;;
    --no-docs) docs= ;;
    --cases) cases=$2; shift ;;
    --size-compression) size=$2; shift ;;
    --time-compression) timec=$2; shift ;;
    *) echo "twin.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
TWIN_KWOK=$(cd internal/twin/tools && go tool -n kwok)
# KEDA's operator and metrics adapter, built from v2.19.0's source with its
# replace block (internal/kedadiff pins both), and its CRDs from the same
# module.
TWIN_KEDA_OPERATOR=$(cd internal/kedadiff && go tool -n operator)
TWIN_KEDA_ADAPTER=$(cd internal/kedadiff && go tool -n adapter)
TWIN_KEDA_CRDS=$(cd internal/kedadiff && go list -m -f '{{.Dir}}' github.com/kedacore/keda/v2)/config/crd/bases
export TWIN_KWOK TWIN_KEDA_OPERATOR TWIN_KEDA_ADAPTER TWIN_KEDA_CRDS TWIN_OUT=$out TWIN_CASES=$cases TWIN_SIZE_COMPRESSION=$size TWIN_TIME_COMPRESSION=$timec
start=$SECONDS
status=0
(cd internal/twin && go test -count=1 -timeout 60m -run 'TestSizeCriteria|TestTimeCriteria|TestFirstMessage|TestBacklogEncoding' -v .) >"$out/test.log" 2>&1 || status=$?
grep -E '^(=== RUN|--- |PASS|FAIL|ok)|(size|time|zero|check)_test\.go' "$out/test.log" || true
if [ "$status" -ne 0 ]; then
  grep -E "the control plane's log" "$out/test.log" || true
fi
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain -- internal/twin internal/kedadiff scripts/twin.sh analyze 2>/dev/null)" ]; then
  commit="$commit with uncommitted changes"
fi
note="Produced by \`scripts/twin.sh\` on $(date -u +%Y-%m-%d) at commit $commit: Kubernetes v1.34.0, kwok v0.7.0, KEDA v2.19.0, part 1 at compression $size, part 2 at compression $timec; $((SECONDS - start)) s."
# Every case asked for leaves a verdict, or the run fails.
want=$(cd internal/twin && grep -ohE '\{name: "[a-z0-9-]+"' size_test.go time_test.go zero_test.go | sed 's/{name: "//; s/"$//' | grep -E "${cases:-.}" | wc -l)
got=$(find "$out" -name '*.json' | wc -l)
if [ "$got" -ne "$want" ]; then
  echo "twin.sh: $got verdicts for the $want cases asked for" >&2
  status=1
fi
# The document is rewritten from a full run whatever it found (a criterion
# the twin refutes is a row that says so), but not from a run that left a
# criterion without a verdict.
if [ -n "$docs" ] && [ -z "$cases" ] && [ "$got" -eq "$want" ]; then
  (cd internal/twin && go run ./fidelity -in "$out" -doc "$root/docs/fidelity.md" -note "$note")
  echo "twin.sh: docs/fidelity.md rewritten"
else
  (cd internal/twin && go run ./fidelity -in "$out" -note "$note") || true
fi
exit "$status"
