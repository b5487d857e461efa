// Package cmdutil holds what the commands of capreport share, as the
// GitHub CLI's pkg/cmdutil does: the Factory they are built over (streams,
// clock, GitHub client, git, version, profiler), the errors that decide the
// exit code, the flag parsers and the render flags every rendering command
// takes, saved reports read within a bound, and the report written in
// each format.
package cmdutil

import (
	"context"
	"net/http"
	"os"
	"time"

	"github.com/capreport/capreport/pipeline"
	ghreport "github.com/capreport/capreport/report/github"
)

// Factory is what the commands take from the process: the streams, the
// clock, the environment and HTTP client of the GitHub commands, the git
// runner, the version and the profiler of --profile. run builds it once
// and passes it to every NewCmdX; tests build their own.
type Factory struct {
	IOStreams *IOStreams
	// Now is the clock: calibrate's window ends at it.
	Now func() time.Time
	// GHDeps are the environment, the HTTP client and the retry policy.
	GHDeps
	// Git runs one git command in a directory (--ref, diff --base-ref).
	Git GitRunner
	// Version is the build's (build.Version), which reports name.
	Version string
	// Build is what --version prints.
	Build BuildInfo
	// Prof is --profile's state, started before a command and stopped
	// after it by run.
	Prof *Profiler
}

// GitRunner runs one git command in dir and returns its trimmed stdout.
type GitRunner func(ctx context.Context, dir string, args ...string) (string, error)

// NewFactory is the process's factory on ios, of the build b: the wall
// clock, the process environment, the library's HTTP client, the git
// binary.
func NewFactory(ios *IOStreams, b BuildInfo) *Factory {
	return &Factory{
		IOStreams: ios,
		Now:       time.Now,
		GHDeps:    GHDeps{Env: os.LookupEnv},
		Git:       pipeline.RunGit,
		Version:   b.Version,
		Build:     b,
		Prof:      &Profiler{},
	}
}

// Getenv reads the factory's environment, empty when unset.
func (f *Factory) Getenv(k string) string {
	v, _ := f.Env(k)
	return v
}

// LookupEnv reads one environment variable; injected so that tests never
// touch the process environment.
type LookupEnv func(string) (string, bool)

// GHDeps are what a GitHub command takes from its surroundings; tests
// inject an environment, and a retry policy that does not sleep.
type GHDeps struct {
	Env        LookupEnv
	HTTPClient *http.Client   // nil: the library's default
	Retry      ghreport.Retry // zero: the library's default
}
