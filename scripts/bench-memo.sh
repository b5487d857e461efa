#!/usr/bin/env bash
# bench-memo.sh: what the render cache's digest memo (render/internal/digestmemo)
# saves a warm `capreport diff --base-ref` whose base moves one commit a run,
# as it does on a pull request's branch while main moves on (issue 32: the
# memo stays only if the library-free alternative, reading and hashing every
# input, costs more than 15 %).
#
# It builds this checkout twice: as it is, and with the memo off (the block
# of render/cache.Open that acquires it skipped, so every input is read and
# hashed: a plain content-addressed check). Each variant gets a cache of
# its own, a cold run at REPO's HEAD~3 and a first move to HEAD~2; then the
# variants take turns, the base alternating between HEAD~1 and HEAD~2, COUNT
# runs each. Prints each run's wall, user and system seconds, then the
# medians. The head is REPO's working tree (change a value there first, so
# the diff has something to say). Run on an idle machine.
#
# Usage: scripts/bench-memo.sh REPO    a git repository with 4 commits or more
# Environment: COUNT (default 6)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
COUNT=${COUNT:-6}
repo=$(cd "$1" && pwd)
tmp=$(mktemp -d)
trap 'git -C "$ROOT" worktree remove --force "$tmp/src" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT

(cd "$ROOT" && go build -o "$tmp/memo" ./cmd/capreport)
git -C "$ROOT" worktree add -q --detach "$tmp/src" HEAD
# The memo is acquired in the one block of Open that `if o.OnDisk {` opens.
grep -q 'c.memo = digestmemo.Acquire(' "$tmp/src/render/cache/cache.go" &&
	[[ $(grep -c 'if o.OnDisk {' "$tmp/src/render/cache/cache.go") == 1 ]] || {
	echo "render/cache/cache.go no longer acquires the memo as this script expects" >&2
	exit 1
}
sed -i 's/if o.OnDisk {/if false \&\& o.OnDisk {/' "$tmp/src/render/cache/cache.go"
(cd "$tmp/src" && gofmt -w render/cache/cache.go && go build -o "$tmp/nomemo" ./cmd/capreport)

run() { # variant base-ref; a diff that finds a failing autoscaler exits 1
	/usr/bin/time -o "$tmp/time" -f "$1 %e %U %S" "$tmp/$1" diff "$repo" --base-ref "$2" --cache \
		--cache-dir "$tmp/cache-$1" --format json >/dev/null 2>&1 || true
	tail -1 "$tmp/time"
}
median() { sort -n | awk '{a[NR] = $1} END {printf "%.2f", a[int((NR+1)/2)]}'; }
for v in memo nomemo; do
	run "$v" HEAD~3 >/dev/null
	run "$v" HEAD~2 >/dev/null
done
for ((i = 1; i <= COUNT; i++)); do
	for v in memo nomemo; do run "$v" "HEAD~$((i % 2 + 1))"; done
done | tee "$tmp/runs"
for v in memo nomemo; do
	echo "$v: median wall $(awk -v v="$v" '$1 == v {print $2}' "$tmp/runs" | median) s," \
		"CPU $(awk -v v="$v" '$1 == v {print $3 + $4}' "$tmp/runs" | median) s"
done
