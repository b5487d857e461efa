package main

import (
	"runtime/debug"
	"strings"
	"testing"
)

// readBuildInfo takes the release's stamp first, then what the toolchain
// recorded: go install ...@v1.2.0 records the tag, a build in a checkout
// a pseudo-version and the revision, a test binary "(devel)" and nothing.
func TestReadBuildInfo(t *testing.T) {
	vcs := []debug.BuildSetting{{Key: "vcs.revision", Value: "62ae6933"}, {Key: "vcs.time", Value: "2026-12-03T23:23:35Z"}, {Key: "vcs.modified", Value: "true"}}
	for _, tc := range []struct {
		name                    string
		stamped, stampedCommit  string
		info                    *debug.BuildInfo
		wantVersion, wantCommit string
		wantModified            bool
	}{
		{name: "test binary", info: &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, wantVersion: "dev"},
		{name: "no build info", wantVersion: "dev"},
		{name: "go install at a tag", info: &debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}}, wantVersion: "v1.2.0"},
		{name: "a checkout", info: &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261203232335-62ae6933776e+dirty"}, Settings: vcs},
			wantVersion: "v0.0.0-20261203232335-62ae6933776e+dirty", wantCommit: "62ae6933", wantModified: true},
		{name: "a release", stamped: "v1.3.0", stampedCommit: "abcdef", info: &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs[:1]},
			wantVersion: "v1.3.0", wantCommit: "abcdef"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func(v, c string) { version, commit = v, c }(version, commit)
			version, commit = tc.stamped, tc.stampedCommit
			b := readBuildInfo(func() (*debug.BuildInfo, bool) { return tc.info, tc.info != nil })
			if b.Version != tc.wantVersion || b.Commit != tc.wantCommit || b.Modified != tc.wantModified {
				t.Errorf("got %+v, want version %q commit %q modified %v", b, tc.wantVersion, tc.wantCommit, tc.wantModified)
			}
			if s := b.String(); !strings.HasPrefix(s, tc.wantVersion) || !strings.Contains(s, "\ngo: go1.") {
				t.Errorf("--version prints %q", s)
			}
		})
	}
}
