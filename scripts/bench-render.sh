#!/usr/bin/env bash
# bench-render.sh: superseded by scripts/bench-repo.sh, which measures
# capreport's whole pipeline (render, extract, price, JSON report; render
# workers included) on any repository against helm template / kustomize
# build, one process per source. This name runs its corpus mode: every case
# of ../shared/corpus with its values. CORPUS, COUNT and KUBE work as before
# (see bench-repo.sh). The in-process render alone is still
# `go test ./render/ -run '^$' -bench BenchmarkRenderExtractCorpus`.
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/bench-repo.sh" --corpus "$@"
