package main

import (
	"os"
	"runtime/debug"
	"time"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/pipeline"
)

// newFactory is the process's factory on ios: the wall clock, the
// process environment, the library's HTTP client, the git binary.
func newFactory(ios *cmdutil.IOStreams) *cmdutil.Factory {
	b := readBuildInfo(debug.ReadBuildInfo)
	return &cmdutil.Factory{
		IOStreams: ios,
		Now:       time.Now,
		GHDeps:    cmdutil.GHDeps{Env: os.LookupEnv},
		Git:       pipeline.RunGit,
		Version:   b.Version,
		Build:     b,
		Prof:      &cmdutil.Profiler{},
	}
}
