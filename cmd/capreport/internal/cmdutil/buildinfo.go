package cmdutil

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// BuildInfo is what --version prints and what a report says made it.
type BuildInfo struct {
	Version  string // a release tag (v1.2.0), a module pseudo-version, or "dev"
	Commit   string // the git revision built, "" when unknown
	Date     string // when that revision was committed (or the release built)
	Modified bool   // the work tree had changes the revision does not hold
	Go       string // the toolchain and platform
}

// StampBuildInfo combines the stamped version, commit and date with the
// toolchain's record: `go install github.com/capreport/capreport/cmd/capreport@v1.2.0`
// records v1.2.0, a build in a git checkout records a pseudo-version and
// the revision (Go 1.24 and later), a test binary records neither.
func StampBuildInfo(stamped BuildInfo, read func() (*debug.BuildInfo, bool)) BuildInfo {
	b := stamped
	b.Go = runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH
	info, ok := read()
	if !ok {
		return b.orDev()
	}
	if b.Version == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
		b.Version = info.Main.Version
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			if b.Commit == "" {
				b.Commit = s.Value
			}
		case "vcs.time":
			if b.Date == "" {
				b.Date = s.Value
			}
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b.orDev()
}

func (b BuildInfo) orDev() BuildInfo {
	if b.Version == "" {
		b.Version = "dev"
	}
	return b
}

// String is what --version prints after "capreport version ".
func (b BuildInfo) String() string {
	var sb strings.Builder
	sb.WriteString(b.Version)
	if b.Commit != "" {
		fmt.Fprintf(&sb, "\ncommit: %s", b.Commit)
		if b.Modified {
			sb.WriteString(" (modified)")
		}
	}
	if b.Date != "" {
		fmt.Fprintf(&sb, "\ndate: %s", b.Date)
	}
	fmt.Fprintf(&sb, "\ngo: %s", b.Go)
	return sb.String()
}
