#!/usr/bin/env bash
# bench-repo.sh: capreport's whole pipeline on a repository against the
# reference command-line tools rendering the same sources, one process per
# source, measured in one run: CPU (user + system), wall time, peak RSS and
# their ratios.
#
# Usage (from anywhere in the repository):
#   scripts/bench-repo.sh PATH [capreport flags]   any repository
#   scripts/bench-repo.sh --corpus                  ../shared/corpus with its values
#
# The capreport side is the real command, `capreport PATH --format json
# [flags]`, built from this checkout; its render workers are child
# processes and count. The CLI side is derived from that command's own
# report (sources[]): one `helm template` per chart source with the value set
# the report names (the .capreport.yaml's value files and --set pairs, or -f
# and --set for a discovered chart; the same release name, namespace,
# --kube-version and --api-versions, --skip-tests as capreport drops test
# hooks) and one `kustomize build` per Kustomize root. Plain YAML, library
# charts and GitOps-delivered Helm releases are not run on the CLI side; the
# output says how many. scripts/benchrepo does the measuring; its comment
# says how each figure is taken.
#
# --corpus renders every case of ../shared/corpus as its README does: each
# chart with release rel in namespace demo, once with its defaults and once
# with capreport-values.yaml when it has one (a generated .capreport.yaml,
# passed with --config), each Kustomize case at its render root (discovered),
# and the plain cases, which the CLIs do not render.
#
# Environment:
#   COUNT   measured rounds of each side after a warm-up (default 3; the
#           median by CPU is shown)
#   JOBS    CLI processes run at once (default: the number of CPUs, as many
#           as capreport's render workers)
#   KUBE    --kube-version for --corpus (default 1.34.0, capreport's default)
#   CORPUS  corpus directory for --corpus (default ../shared/corpus)
#   KEEP    a directory to keep capreport's report and the CLI commands in
#
# Needs: Go (it builds capreport, helm v3.22.0 and kustomize v5.8.2 with go
# build / go install into a temporary directory, so the module proxy or a
# warm module cache) and Linux /proc (rusage of the children and RSS
# sampling). Not part of `go test ./...`. Run it on an idle machine: the
# output records the load average before and after.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
HELM_VERSION=v3.22.0
# v5.8.2 is the kustomize release built on api/kyaml v0.21.2 (what capreport
# pins); v5.8.3 needs Go 1.27.
KUSTOMIZE_VERSION=v5.8.2
COUNT=${COUNT:-3}
JOBS=${JOBS:-$(nproc)}

if [[ $# -lt 1 ]]; then
	sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=$tmp/bin

echo "building capreport, helm $HELM_VERSION and kustomize $KUSTOMIZE_VERSION into $bin ..." >&2
(cd "$ROOT" && go build -o "$bin/capreport" ./cmd/capreport && go build -o "$bin/benchrepo" ./scripts/benchrepo)
(cd "$tmp" && GOBIN=$bin GOFLAGS= go install "helm.sh/helm/v3/cmd/helm@$HELM_VERSION")
(cd "$tmp" && GOBIN=$bin GOFLAGS= go install "sigs.k8s.io/kustomize/kustomize/v5@$KUSTOMIZE_VERSION")
# A binary the Go linker has just written sits in the page cache in 2 MB
# folios, and the kernel maps its text with huge pages: every process started
# from it counts 20-30 MB more resident memory than the same program installed
# by an ordinary copy (FilePmdMapped in /proc/PID/smaps_rollup), and how much
# more depends on where its touched code falls. Both sides are measured as a
# user runs them: each binary is rewritten by a plain copy.
for b in capreport helm kustomize; do
	cat "$bin/$b" >"$bin/$b.copy" && chmod +x "$bin/$b.copy" && mv "$bin/$b.copy" "$bin/$b"
done

# corpus_config writes the .capreport.yaml of --corpus: every chart case of
# the corpus README with release rel in demo, its defaults and its
# capreport-values.yaml.
corpus_config() {
	local corpus=$1 c
	echo "sources:"
	while IFS= read -r line; do
		[[ $line == "## "* ]] || continue
		c=${line#"## "}
		[[ -f $corpus/$c/Chart.yaml ]] || continue
		echo "  - path: $c"
		echo "    releaseName: rel"
		echo "    namespace: demo"
		if [[ -f $corpus/$c/capreport-values.yaml ]]; then
			echo "    valueSets:"
			echo "      - name: defaults"
			echo "      - name: values"
			echo "        values: [capreport-values.yaml]"
		fi
	done <"$corpus/README.md"
}

args=("$@")
if [[ $1 == --corpus ]]; then
	corpus=$(cd "${CORPUS:-$ROOT/../shared/corpus}" && pwd)
	corpus_config "$corpus" >"$tmp/corpus.capreport.yaml"
	args=("$corpus" --config "$tmp/corpus.capreport.yaml" --root "$corpus" --kube-version "${KUBE:-1.34.0}" "${@:2}")
fi

keep=()
if [[ -n ${KEEP:-} ]]; then
	keep=(-keep "$KEEP")
fi
"$bin/benchrepo" -capreport "$bin/capreport" -helm "$bin/helm" -kustomize "$bin/kustomize" \
	-count "$COUNT" -jobs "$JOBS" "${keep[@]}" "${args[@]}"
