#!/usr/bin/env bash
# bench-render.sh: capreport's in-process render of the corpus against the
# helm and kustomize command-line tools, in one run.
#
# The Go side is BenchmarkRenderExtractCorpus (render/extract_bench_test.go):
# every Helm render of the corpus (release "rel", namespace "demo", chart
# defaults and then capreport-values.yaml when present) and every Kustomize
# render (the README's render root), one Render call each, followed by the
# extraction of every autoscaler it yields. The CLI side runs the same
# renders as one `helm template` / `kustomize build` process each, with
# binaries built into a temporary GOBIN. Plain-YAML cases have no CLI
# counterpart and are left out of both sides.
#
# Usage: scripts/bench-render.sh            (from anywhere in the repository)
# Environment:
#   CORPUS  corpus directory (default: ../shared/corpus next to the repository)
#   COUNT   iterations of each side (default 5)
#   KUBE    Kubernetes version both sides render for (default 1.34.0)
# Not part of `go test ./...`; it needs network access (or a warm module
# cache) to build the two CLIs.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CORPUS=$(cd "${CORPUS:-$ROOT/../shared/corpus}" && pwd)
COUNT=${COUNT:-5}
KUBE=${KUBE:-1.34.0}
HELM_VERSION=v3.22.0
# v5.8.2 is the kustomize release built on api/kyaml v0.21.2 (what capreport
# pins); v5.8.3 needs Go 1.27.
KUSTOMIZE_VERSION=v5.8.2

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=$tmp/bin

echo "building helm $HELM_VERSION and kustomize $KUSTOMIZE_VERSION into $bin ..." >&2
(cd "$tmp" && GOBIN=$bin GOFLAGS= go install "helm.sh/helm/v3/cmd/helm@$HELM_VERSION")
(cd "$tmp" && GOBIN=$bin GOFLAGS= go install "sigs.k8s.io/kustomize/kustomize/v5@$KUSTOMIZE_VERSION")

# The renders, from the corpus README: "helm <dir> [values]" or
# "kustomize <dir>".
jobs=()
current=""
while IFS= read -r line; do
	case "$line" in
	"## "*)
		current=${line#"## "}
		if [[ -f "$CORPUS/$current/Chart.yaml" ]]; then
			jobs+=("helm $CORPUS/$current")
			if [[ -f "$CORPUS/$current/capreport-values.yaml" ]]; then
				jobs+=("helm $CORPUS/$current $CORPUS/$current/capreport-values.yaml")
			fi
		fi
		;;
	*"Render root inside this directory: \`"*)
		r=${line#*\`}
		r=${r%%\`*}
		jobs+=("kustomize $CORPUS/$current/$r")
		;;
	esac
done <"$CORPUS/README.md"
echo "${#jobs[@]} renders per iteration, $COUNT iterations, Kubernetes $KUBE" >&2

run_cli() {
	local kind dir values
	read -r kind dir values <<<"$1"
	if [[ $kind == helm ]]; then
		if [[ -n ${values:-} ]]; then
			"$bin/helm" template rel "$dir" --namespace demo --kube-version "$KUBE" -f "$values"
		else
			"$bin/helm" template rel "$dir" --namespace demo --kube-version "$KUBE"
		fi
	else
		"$bin/kustomize" build "$dir"
	fi
}

# Warm the page cache and check the CLIs run; otel-collector's defaults
# render fails by design (the chart refuses to render without values).
failures=0
for j in "${jobs[@]}"; do
	run_cli "$j" >/dev/null 2>&1 || failures=$((failures + 1))
done

start=$(date +%s%N)
for ((i = 0; i < COUNT; i++)); do
	for j in "${jobs[@]}"; do
		run_cli "$j" >/dev/null 2>&1 || true
	done
done
end=$(date +%s%N)
cli_ns=$(((end - start) / COUNT))

out=$(cd "$ROOT" && CAPREPORT_CORPUS=$CORPUS go test ./render/ -run '^$' \
	-bench '^BenchmarkRenderExtractCorpus$' -benchtime "${COUNT}x" -count 1)
echo "$out" | grep -E '^Benchmark' >&2
go_ns=$(echo "$out" | awk '/^BenchmarkRenderExtractCorpus/ { for (i = 1; i <= NF; i++) if ($(i+1) == "ns/op") print $i }')
if [[ -z $go_ns ]]; then
	echo "could not read the benchmark result:" >&2
	echo "$out" >&2
	exit 1
fi

awk -v cli="$cli_ns" -v go="$go_ns" -v n="${#jobs[@]}" -v f="$failures" 'BEGIN {
	printf "renders per iteration:             %d (%d fail in the CLIs, as expected for otel-collector defaults)\n", n, f
	printf "helm template + kustomize build:   %8.1f ms per iteration (%.1f ms per process)\n", cli / 1e6, cli / 1e6 / n
	printf "capreport render (in-process):     %8.1f ms per iteration (%.1f ms per render)\n", go / 1e6, go / 1e6 / n
	printf "speed-up (CLI time / capreport):   %8.1fx\n", cli / go
}'
