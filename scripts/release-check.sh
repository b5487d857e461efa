#!/usr/bin/env bash
# release-check.sh: make the release as .goreleaser.yaml describes it, as a
# snapshot into dist/, and check what a release would publish:
#
#   - `goreleaser check` (the configuration, with every pipe's defaults:
#     the ko entry's build, main package and repository among them);
#   - an archive for each of linux, darwin and windows on amd64 and arm64,
#     under the names scripts/action-install.sh downloads, each holding
#     the binary, README.md and LICENSE;
#   - checksums.txt listing exactly those archives, every sum matching;
#   - the binary of this machine's archive reporting the tag and this commit
#     (the ldflags of .goreleaser.yaml);
#   - the Action's install step (scripts/action-install.sh) installing that
#     binary from these files, served on the loopback as a release serves
#     them (on linux/amd64 and linux/arm64, with python3);
#   - the container image, built and pushed by GoReleaser's ko pipe as the
#     release does it, to a registry on the loopback (tools/release/ocicheck):
#     an index of linux/amd64 and linux/arm64 images whose entrypoint is
#     the binary, which reports the tag and this commit, and on linux/amd64
#     lists examples/shop. The snapshot above cannot build it: there the
#     pipe loads the image into a docker daemon (ko.local) instead of
#     pushing it (internal/pipe/ko), so it runs with --skip=ko, and the
#     image comes from a second, non-snapshot run of the same configuration
#     with three changes: KO_DOCKER_REPO names the loopback registry, the
#     base image is an empty stand-in served there (the release pulls
#     cgr.dev/chainguard/static, which is not checked here, nor is the push
#     to ghcr.io), and the GitHub release and its changelog are disabled.
#
# SBOMs are skipped (--skip=sbom): GoReleaser runs the external syft
# binary for them, which the release workflow installs and CI does not.
#
# GoReleaser comes from the module proxy at the version tools/release/go.mod
# pins (a module of its own, so the product's go.mod stays small). From a
# cold build cache this is slow: on the 2-core machine, 4 December 2026,
# under other work (load 5-14), building GoReleaser took 8 min 42 s (8 min
# 49 s of CPU) and the snapshot's six cross-builds of capreport 36 min
# (36 min of CPU); with a warm cache the whole script takes about a
# minute. So .ci/run does not run it.
#
# Usage: scripts/release-check.sh   (from anywhere; writes dist/)
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS

# The goreleaser binary, built (once, into the build cache) by go tool.
goreleaser=$(cd tools/release && go tool -n goreleaser)
"$goreleaser" --version | grep GitVersion

# GoReleaser reads the repository's URL from the remote; a checkout
# without one (a developer's clone of a clone) gets the release's.
if ! git remote get-url origin >/dev/null 2>&1; then
  export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.origin.url GIT_CONFIG_VALUE_0=https://github.com/capreport/capreport.git
fi

"$goreleaser" check
"$goreleaser" release --snapshot --clean --skip=sbom,ko

fail() { echo "release-check: $*" >&2; exit 1; }
# The version names the archives (the tag without its v; a snapshot's
# carries SNAPSHOT and the short commit); the tag is what the binary
# reports (-X main.version={{ .Tag }}; v0.0.0 in a snapshot of an untagged
# commit).
version=$(sed -n 's/.*"version":"\([^"]*\)".*/\1/p' dist/metadata.json)
tag=$(sed -n 's/.*"tag":"\([^"]*\)".*/\1/p' dist/metadata.json)
[ -n "$version" ] && [ -n "$tag" ] || fail "no version or tag in dist/metadata.json"
commit=$(git rev-parse HEAD)

archives=()
for os in linux darwin windows; do
  for arch in amd64 arm64; do
    ext=tar.gz exe=capreport
    if [ "$os" = windows ]; then ext=zip exe=capreport.exe; fi
    a="capreport_${version}_${os}_${arch}.${ext}"
    [ -f "dist/$a" ] || fail "dist/$a is missing"
    if [ "$ext" = zip ]; then
      list=$(unzip -Z1 "dist/$a")
    else
      list=$(tar -tzf "dist/$a")
    fi
    for f in "$exe" README.md LICENSE; do
      grep -qx "$f" <<<"$list" || fail "$a does not hold $f (it holds: $(tr '\n' ' ' <<<"$list"))"
    done
    archives+=("$a")
  done
done

listed=$(awk '{ print $2 }' dist/checksums.txt | sed 's/^\*//' | LC_ALL=C sort)
want=$(printf '%s\n' "${archives[@]}" | LC_ALL=C sort)
[ "$listed" = "$want" ] || fail "checksums.txt lists $(tr '\n' ' ' <<<"$listed"), want $(tr '\n' ' ' <<<"$want")"
(cd dist && sha256sum --quiet -c checksums.txt) || fail "checksums.txt does not match the archives"

# This machine's binary, from its archive.
host_os=$(go env GOOS) host_arch=$(go env GOARCH)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ "$host_os" = windows ]; then
  unzip -q "dist/capreport_${version}_${host_os}_${host_arch}.zip" capreport.exe -d "$tmp"
  bin=$tmp/capreport.exe
else
  tar -xzf "dist/capreport_${version}_${host_os}_${host_arch}.tar.gz" -C "$tmp" capreport
  bin=$tmp/capreport
fi
got=$("$bin" --version)
grep -qx "capreport version $tag" <<<"$got" || fail "--version says '$got', not the tag $tag"
grep -qx "commit: $commit" <<<"$got" || fail "--version says '$got', not this commit $commit"

# The Action's install step against these archives, served as a release
# serves them (python3's http.server on the loopback).
case "$host_os/$host_arch" in
  linux/amd64) runner_arch=X64 ;;
  linux/arm64) runner_arch=ARM64 ;;
  *) runner_arch= ;;
esac
if [ -n "$runner_arch" ] && command -v python3 >/dev/null; then
  rel="$tmp/srv/capreport/capreport/releases/download/v$version"
  mkdir -p "$rel" "$tmp/runner"
  cp dist/checksums.txt "${archives[@]/#/dist/}" "$rel/"
  python3 - "$tmp/srv" "$tmp/port" <<'PY' &
import functools, http.server, socketserver, sys
class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass
handler = functools.partial(Quiet, directory=sys.argv[1])
with socketserver.TCPServer(("127.0.0.1", 0), handler) as s:
    open(sys.argv[2] + ".tmp", "w").write(str(s.server_address[1]))
    __import__("os").rename(sys.argv[2] + ".tmp", sys.argv[2])
    s.serve_forever()
PY
  server=$!
  trap 'kill "$server" 2>/dev/null; rm -rf "$tmp"' EXIT
  for _ in $(seq 50); do [ -f "$tmp/port" ] && break; sleep 0.1; done
  ACTION_REF="v$version" ACTION_REPOSITORY=capreport/capreport SERVER_URL="http://127.0.0.1:$(cat "$tmp/port")" \
    RUNNER_OS=Linux RUNNER_ARCH=$runner_arch RUNNER_TEMP="$tmp/runner" GITHUB_ACTION_PATH="$PWD" \
    GITHUB_OUTPUT="$tmp/output" bash scripts/action-install.sh
  grep -qx found=true "$tmp/output" || fail "scripts/action-install.sh did not install the release: $(cat "$tmp/output")"
  "$tmp/runner/capreport" --version | grep -qx "commit: $commit" || fail "the binary the Action installs is not this commit's"
  echo "release-check: scripts/action-install.sh installed the $host_os/$host_arch binary from the served release"
else
  echo "release-check: the Action's install step is not tried here (it needs linux/amd64 or linux/arm64 and python3)"
fi

# The image: the loopback registry with its stand-in base, then GoReleaser
# as on a tag (GORELEASER_CURRENT_TAG; --skip=validate: no tag in git, a
# snapshot's dist/ beside it), pushing there.
(cd tools/release && go build -o "$tmp/ocicheck" ./ocicheck)
"$tmp/ocicheck" serve "$tmp/registry" &
registry=$!
trap 'kill "$registry" ${server:-} 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 100); do [ -f "$tmp/registry" ] && break; sleep 0.1; done
[ -f "$tmp/registry" ] || fail "the loopback registry did not start"
host=127.0.0.1:$(cat "$tmp/registry")
sed -e "s|^    base_image: .*|    base_image: $host/static:latest|" \
  -e 's|^release:$|release:\n  disable: true|' \
  -e 's|^changelog:$|changelog:\n  disable: true|' .goreleaser.yaml >"$tmp/goreleaser.yaml"
printf 'dist: %s\n' "$tmp/dist" >>"$tmp/goreleaser.yaml"
for want in "base_image: $host/static:latest" "^  disable: true" "^dist: "; do
  grep -q "$want" "$tmp/goreleaser.yaml" || fail "could not point .goreleaser.yaml's copy at the loopback ($want)"
done
imagetag=v0.0.0-releasecheck
GORELEASER_CURRENT_TAG=$imagetag KO_DOCKER_REPO=$host/capreport \
  "$goreleaser" release --clean --config "$tmp/goreleaser.yaml" --skip=validate,announce,sbom,before,archive
"$tmp/ocicheck" verify "$host/capreport:${imagetag#v}" "$tmp/image"
"$tmp/ocicheck" verify "$host/capreport:latest" "$tmp/image-latest" >/dev/null
if [ "$host_os" = linux ] && [ -x "$tmp/image/linux_${host_arch}/capreport" ]; then
  got=$("$tmp/image/linux_${host_arch}/capreport" --version)
  grep -qx "capreport version $imagetag" <<<"$got" || fail "the image's binary says '$got', not $imagetag"
  grep -qx "commit: $commit" <<<"$got" || fail "the image's binary says '$got', not this commit $commit"
  "$tmp/image/linux_${host_arch}/capreport" list examples/shop >/dev/null || fail "the image's binary cannot list examples/shop"
  echo "release-check: the image's linux/$host_arch binary is this commit's and lists examples/shop"
fi

echo "release-check: ${#archives[@]} archives and checksums.txt for $version, the image for $imagetag ($commit), in $((SECONDS - start)) s"
