package main

import (
	"runtime/debug"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
)

// version, commit and date are stamped by the release build
// (GoReleaser's default -ldflags "-X main.version=... -X main.commit=...
// -X main.date=..."); a build without them reads what the Go toolchain
// recorded (readBuildInfo).
var (
	version = ""
	commit  = ""
	date    = ""
)

// readBuildInfo is the build's: the stamped variables over what the
// toolchain recorded (read).
func readBuildInfo(read func() (*debug.BuildInfo, bool)) cmdutil.BuildInfo {
	return cmdutil.StampBuildInfo(cmdutil.BuildInfo{Version: version, Commit: commit, Date: date}, read)
}
