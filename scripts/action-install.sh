#!/usr/bin/env bash
# The GitHub Action's install step: download the release binary that
# matches the action's own ref and verify it against the release's
# checksums.txt; report found=false (the action then builds from source)
# when the ref names no release or the release has no binary for this
# runner. A checksum that does not match is an error, never a fallback.
#
# The ref matches a release when it is that release's tag (v1.2.3), or
# when the action's checkout carries a VERSION file: the release workflow
# (.github/workflows/release.yml) writes one into the commit the major tag
# (v1) points to, so @v1 and that commit's SHA find their release, while
# @main or any other commit build what they name.
#
# Environment: ACTION_REF, ACTION_REPOSITORY (github.action_ref and
# github.action_repository), SERVER_URL (github.server_url), RUNNER_OS,
# RUNNER_ARCH, RUNNER_TEMP, GITHUB_ACTION_PATH, GITHUB_OUTPUT.
set -euo pipefail

notfound() { echo "::notice::capreport: $*; building from the action's source"; echo "found=false" >>"$GITHUB_OUTPUT"; exit 0; }

version=
case "${ACTION_REF:-}" in
  v[0-9]*.[0-9]*.[0-9]*) version="$ACTION_REF" ;;
esac
if [ -z "$version" ] && [ -f "$GITHUB_ACTION_PATH/VERSION" ]; then
  version=$(tr -d ' \r\n' <"$GITHUB_ACTION_PATH/VERSION")
fi
case "$version" in
  v[0-9]*.[0-9]*.[0-9]*) ;;
  '') notfound "the action's ref '${ACTION_REF:-}' names no release" ;;
  *) echo "::error::capreport: VERSION holds '$version', not a release tag"; exit 1 ;;
esac
[ -n "${ACTION_REPOSITORY:-}" ] || notfound "the action's repository is unknown (a local action)"

case "${RUNNER_OS:-}" in Linux) os=linux ;; macOS) os=darwin ;; Windows) os=windows ;; *) notfound "no release binary for runner OS '${RUNNER_OS:-}'" ;; esac
case "${RUNNER_ARCH:-}" in X64) arch=amd64 ;; ARM64) arch=arm64 ;; *) notfound "no release binary for runner arch '${RUNNER_ARCH:-}'" ;; esac
ext=tar.gz exe=capreport
if [ "$os" = windows ]; then ext=zip exe=capreport.exe; fi

# GoReleaser's names (.goreleaser.yaml): the version without its v.
archive="capreport_${version#v}_${os}_${arch}.${ext}"
base="${SERVER_URL:-https://github.com}/$ACTION_REPOSITORY/releases/download/$version"
tmp=$(mktemp -d "$RUNNER_TEMP/capreport-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# http(s) only, redirects included (a release asset redirects to its
# storage); bounded in time and size.
fetch() { curl -fsSL --proto '=http,https' --proto-redir '=http,https' --retry 2 --connect-timeout 10 --max-time 300 --max-filesize 200000000 -o "$1" "$2"; }
fetch "$tmp/checksums.txt" "$base/checksums.txt" || notfound "release $version has no checksums.txt at $base"
fetch "$tmp/$archive" "$base/$archive" || notfound "release $version has no $archive"

want=$(awk -v f="$archive" '$2 == f || $2 == "*" f { print $1 }' "$tmp/checksums.txt")
if command -v sha256sum >/dev/null; then
  got=$(sha256sum "$tmp/$archive" | awk '{ print $1 }')
else
  got=$(shasum -a 256 "$tmp/$archive" | awk '{ print $1 }')
fi
if [ -z "$want" ] || [ "$want" != "$got" ]; then
  echo "::error::capreport: $archive of release $version does not match its checksums.txt (want '${want:-none}', got $got); not installing it"
  exit 1
fi

if [ "$ext" = zip ]; then
  unzip -q -o "$tmp/$archive" "$exe" -d "$tmp"
else
  tar -xzf "$tmp/$archive" -C "$tmp" "$exe"
fi
install -m 0755 "$tmp/$exe" "$RUNNER_TEMP/$exe"
echo "::notice::capreport: installed release $version ($archive, sha256 $got)"
{
  echo "found=true"
  echo "version=$version"
} >>"$GITHUB_OUTPUT"
