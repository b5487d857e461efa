#!/usr/bin/env bash
# bitnami-vendored.sh: build the chart-monorepo test repository of
# scripts/bench-repo.sh from a bitnami/charts snapshot: every chart of
# bitnami/, with each dependency its Chart.yaml declares that the snapshot
# holds (bitnami's `common` library chart, and redis, postgresql, ... when a
# chart depends on them) copied into the chart's charts/ directory, as
# `helm dependency build` would leave it. Dependencies are vendored
# recursively (redis under airflow carries its own charts/common); one the
# snapshot lacks stays missing.
#
# With every dependency in place, `helm template` renders each chart as
# capreport does, so both sides of the benchmark do the same work.
#
# Usage: scripts/bitnami-vendored.sh SRC OUT
#   SRC  a bitnami/charts checkout (a directory holding bitnami/), or a bare
#        git directory of one (its HEAD is exported with git archive)
#   OUT  directory to create (must not exist); OUT/COMMIT records SRC's commit
# Environment:
#   VENDOR  all (default): every dependency found in the snapshot;
#           common: only bitnami/common, the rest left missing
# Needs: bash, git (for a bare SRC), awk, cp, tar.
set -euo pipefail

if [[ $# -ne 2 ]]; then
	echo "usage: $0 SRC OUT" >&2
	exit 2
fi
src=$1
out=$2
VENDOR=${VENDOR:-all}
if [[ -e $out ]]; then
	echo "$out exists" >&2
	exit 2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

commit=unknown
if [[ -d $src/bitnami ]]; then
	charts=$src/bitnami
	commit=$(git -C "$src" rev-parse HEAD 2>/dev/null || echo unknown)
else
	commit=$(git --git-dir="$src" rev-parse HEAD)
	git --git-dir="$src" archive HEAD bitnami | tar -x -C "$tmp"
	charts=$tmp/bitnami
fi

# deps CHART_DIR prints the names of the chart's declared dependencies.
deps() {
	awk '
		/^dependencies:/ { in_deps = 1; next }
		/^[^ \t-]/ { in_deps = 0 }
		in_deps && /^[ \t-]*name:[ \t]*/ {
			sub(/^[ \t-]*name:[ \t]*/, ""); gsub(/["'\'' \t\r]/, ""); print
		}' "$1/Chart.yaml" | sort -u
}

# vendored NAME prints the directory of NAME with its own dependencies
# vendored, building it once under $tmp/v.
vendored() {
	local name=$1 d
	local dir=$tmp/v/$name
	if [[ ! -d $dir ]]; then
		mkdir -p "$tmp/v"
		cp -R "$charts/$name" "$dir"
		for d in $(deps "$dir"); do
			if [[ $d != "$name" ]] && wanted "$d"; then
				mkdir -p "$dir/charts"
				rm -rf "${dir:?}/charts/$d"
				cp -R "$(vendored "$d")" "$dir/charts/$d"
			fi
		done
	fi
	echo "$dir"
}

# wanted NAME: is NAME a dependency to vendor?
wanted() {
	[[ -f $charts/$1/Chart.yaml ]] || return 1
	[[ $VENDOR == all || $1 == common ]]
}

mkdir -p "$out/bitnami"
n=0
v=0
missing=()
for c in "$charts"/*/; do
	c=$(basename "$c")
	[[ -f $charts/$c/Chart.yaml ]] || continue
	cp -R "$(vendored "$c")" "$out/bitnami/$c"
	n=$((n + 1))
	for d in $(deps "$charts/$c"); do
		if wanted "$d"; then
			v=$((v + 1))
		elif [[ ! -e $charts/$c/charts/$d ]]; then
			missing+=("$c→$d")
		fi
	done
done
echo "$commit" >"$out/COMMIT"
echo "$n charts, $v dependencies vendored (VENDOR=$VENDOR), ${#missing[@]} left missing${missing:+: ${missing[*]}}; bitnami/charts $commit" >&2
