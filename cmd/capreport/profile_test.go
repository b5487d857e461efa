package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/render"
)

// --profile writes a profile go tool pprof reads, for the whole command;
// an unknown mode is a usage error, before any work.
func TestProfileFlag(t *testing.T) {
	for _, mode := range []string{"cpu", "heap"} {
		out := filepath.Join(t.TempDir(), mode+".pprof")
		var o, e bytes.Buffer
		if code := run([]string{"simulate", "size", "--profile", mode, "--profile-output", out}, &cmdutil.IOStreams{Out: &o, ErrOut: &e}); code != cmdutil.ExitOK {
			t.Fatalf("%s: exit %d: %s", mode, code, e.String())
		}
		f, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		p, err := profile.Parse(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		if len(p.SampleType) == 0 {
			t.Errorf("%s: profile has no sample types", mode)
		}
	}
	var o, e bytes.Buffer
	if code := run([]string{"simulate", "size", "--profile", "trace"}, &cmdutil.IOStreams{Out: &o, ErrOut: &e}); code != cmdutil.ExitError || !strings.Contains(e.String(), "--profile") {
		t.Errorf("--profile trace: exit %d, stderr %q; want a usage error naming the flag", code, e.String())
	}
}

// The renders run in worker processes; each writes its own profile beside
// the parent's.
func TestProfileCoversRenderWorkers(t *testing.T) {
	out := filepath.Join(t.TempDir(), "cpu.pprof")
	var o, e bytes.Buffer
	if code := run([]string{"../../testdata/specimen", "--format", "json", "--profile", "cpu", "--profile-output", out}, &cmdutil.IOStreams{Out: &o, ErrOut: &e}); code == cmdutil.ExitError {
		t.Fatalf("exit %d: %s", code, e.String())
	}
	if v, set := os.LookupEnv(render.WorkerProfileEnv); set {
		t.Errorf("%s=%q is left set after the command", render.WorkerProfileEnv, v)
	}
	workers, err := filepath.Glob(out + ".worker.*")
	if err != nil || len(workers) == 0 {
		t.Fatalf("no worker profile beside %s (%v)", out, err)
	}
	for _, w := range workers {
		f, err := os.Open(w)
		if err != nil {
			t.Fatal(err)
		}
		_, err = profile.Parse(f)
		f.Close()
		if err != nil {
			t.Errorf("%s: %v", w, err)
		}
	}
}
