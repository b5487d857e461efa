package main

import (
	"context"
	"net/http"
	"os"
	"runtime/debug"
	"time"

	"github.com/capreport/capreport/pipeline"
	ghreport "github.com/capreport/capreport/report/github"
)

// factory is what the commands take from the process: the streams, the
// clock, the environment and HTTP client of the GitHub commands, the git
// runner, the version and the profiler of --profile. run builds it once
// and passes it to every newXCmd; tests build their own.
type factory struct {
	ios *streams
	// now is the clock: calibrate's window ends at it.
	now func() time.Time
	// ghDeps are the environment, the HTTP client and the retry policy.
	ghDeps
	// git runs one git command in a directory (--ref, diff --base-ref).
	git gitRunner
	// version is the build's (build.Version), which reports name.
	version string
	// build is what --version prints.
	build buildInfo
	// prof is --profile's state, started before a command and stopped
	// after it by run.
	prof *profiler
}

// gitRunner runs one git command in dir and returns its trimmed stdout.
type gitRunner func(ctx context.Context, dir string, args ...string) (string, error)

// newFactory is the process's factory on ios: the wall clock, the
// process environment, the library's HTTP client, the git binary.
func newFactory(ios *streams) *factory {
	b := readBuildInfo(debug.ReadBuildInfo)
	return &factory{
		ios:     ios,
		now:     time.Now,
		ghDeps:  ghDeps{env: os.LookupEnv},
		git:     pipeline.RunGit,
		version: b.Version,
		build:   b,
		prof:    &profiler{},
	}
}

// getenv reads the factory's environment, empty when unset.
func (f *factory) getenv(k string) string {
	v, _ := f.env(k)
	return v
}

// lookupEnv reads one environment variable; injected so that tests never
// touch the process environment.
type lookupEnv func(string) (string, bool)

// ghDeps are what a GitHub command takes from its surroundings; tests
// inject an environment, and a retry policy that does not sleep.
type ghDeps struct {
	env        lookupEnv
	httpClient *http.Client   // nil: the library's default
	retry      ghreport.Retry // zero: the library's default
}
