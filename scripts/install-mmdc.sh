#!/usr/bin/env bash
# install-mmdc.sh: Mermaid's command-line renderer (mmdc) and a headless
# Chromium for it, so the Mermaid tests in report/ and report/diff run
# instead of skipping, and scripts/comment-screenshots can render the PR
# comment the way GitHub shows it.
#
# Only Debian's packages and the npm registry are reachable here, so the
# browser is Debian's chromium and puppeteer's own download is skipped
# (PUPPETEER_SKIP_DOWNLOAD=1); the tests hand mmdc a puppeteer config that
# points at /usr/bin/chromium.
#
# Idempotent and quick when already installed: each step runs only when
# its result is missing or at another version.
#
# Usage: scripts/install-mmdc.sh   (as root; from anywhere)
set -euo pipefail

MMDC_VERSION=11.17.0

if ! [ -x /usr/bin/chromium ]; then
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium fonts-dejavu-core
fi

if ! command -v npm >/dev/null; then
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nodejs npm
fi

have=$(mmdc --version 2>/dev/null || true)
if [ "$have" != "$MMDC_VERSION" ]; then
	PUPPETEER_SKIP_DOWNLOAD=1 npm install --global --no-fund --no-audit "@mermaid-js/mermaid-cli@$MMDC_VERSION"
fi
