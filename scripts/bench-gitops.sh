#!/usr/bin/env bash
# bench-gitops.sh: what following Flux and Argo CD costs a user. For each
# repository, `capreport list REPO` (following its GitOps objects, the
# default) against `capreport list --gitops=false REPO` (the plain render:
# every chart, overlay and file on its own), both the real command with its
# render workers, each run COUNT times after a warm-up; the median wall time
# of each and their ratio are printed. Issue 29 holds the ratio to 2 on a
# production-sized Flux repository.
#
# Usage (from anywhere in the repository):
#   scripts/bench-gitops.sh [REPO...]   default: every held-out repository
#                                       (testdata/gitops-heldout*/*/LICENSE or LICENCE)
#
# Environment:
#   COUNT   measured runs of each side (default 7)
#
# The render alone, in-process and without the workers' start, is
# `go test ./render -run '^$' -bench GitOpsFollow`. Run on an idle machine.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
COUNT=${COUNT:-7}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$ROOT" && go build -o "$tmp/capreport.built" ./cmd/capreport)
# A plain copy, as a user installs it (see bench-repo.sh on huge pages).
cat "$tmp/capreport.built" >"$tmp/capreport" && chmod +x "$tmp/capreport"

if [[ $# -eq 0 ]]; then
	for licence in "$ROOT"/testdata/gitops-heldout*/*/LICEN[CS]E; do
		set -- "$@" "$(dirname "$licence")"
	done
fi

# median_wall runs capreport list with the given flags COUNT times and
# prints the median wall time in seconds.
median_wall() {
	local i start end
	"$tmp/capreport" list "$@" >/dev/null 2>&1 || true # warm-up
	for ((i = 0; i < COUNT; i++)); do
		start=$(date +%s.%N)
		"$tmp/capreport" list "$@" >/dev/null 2>&1 || true # a failing autoscaler exits 1
		end=$(date +%s.%N)
		echo "$end - $start" | bc
	done | sort -n | awk '{a[NR]=$1} END {printf "%.3f", a[int((NR+1)/2)]}'
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '| repository | objects | list | list --gitops=false | ratio |\n|---|---|---|---|---|\n'
for repo in "$@"; do
	repo=${repo%/}
	# --root: each repository is its own (inside this checkout, a copy's
	# GitRepository would name another repository and not be followed);
	# the Argo CD copies also need the URL their Applications name, as
	# cmd/capreport/heldout_argo_test.go passes it.
	url=()
	case "$(basename "$repo")" in
	govuk-helm-charts) url=(--repo-url git@github.com/alphagov/govuk-helm-charts) ;;
	jsa4000-cnad) url=(--repo-url https://github.com/jsa4000/Cloud-Native-Application-Definition) ;;
	pf9-gitops-demo) url=(--repo-url https://github.com/Platform9-Community/pf9-gitops-demo.git) ;;
	esac
	objects=$("$tmp/capreport" list "$repo" --root "$repo" "${url[@]}" --format json 2>/dev/null |
		python3 -c 'import json,sys; print(sum(s.get("objects", 0) for s in json.load(sys.stdin).get("sources", [])))' || true)
	follow=$(median_wall --root "$repo" "${url[@]}" "$repo")
	plain=$(median_wall --gitops=false --root "$repo" "${url[@]}" "$repo")
	printf '| %s | %s | %s s | %s s | %.2f |\n' "$(basename "$repo")" "$objects" "$follow" "$plain" "$(echo "$follow / $plain" | bc -l)"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
