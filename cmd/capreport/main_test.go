package main

import (
	"os"
	"testing"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/render"
)

// TestMain lets the test binary serve as capreport's render worker: the
// commands under test start os.Executable(), which is this binary.
func TestMain(m *testing.M) {
	if render.IsWorker() {
		os.Exit(render.ServeWorker())
	}
	if os.Getenv(runAsCapreport) == "1" {
		os.Exit(run(os.Args[1:], cmdutil.SystemStreams()))
	}
	os.Exit(m.Run())
}
