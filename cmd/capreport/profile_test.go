package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// --profile writes a profile go tool pprof reads, for the whole command;
// an unknown mode is a usage error, before any work.
func TestProfileFlag(t *testing.T) {
	for _, mode := range []string{"cpu", "heap"} {
		out := filepath.Join(t.TempDir(), mode+".pprof")
		var o, e bytes.Buffer
		if code := run([]string{"simulate", "size", "--profile", mode, "--profile-output", out}, &streams{Out: &o, ErrOut: &e}); code != exitOK {
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
	if code := run([]string{"simulate", "size", "--profile", "trace"}, &streams{Out: &o, ErrOut: &e}); code != exitError || !strings.Contains(e.String(), "--profile") {
		t.Errorf("--profile trace: exit %d, stderr %q; want a usage error naming the flag", code, e.String())
	}
}
