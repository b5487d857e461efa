package main

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/internal/genrepo"
	"github.com/capreport/capreport/internal/testutil"
)

// A 120-autoscaler run with --out says how far each phase is, with and
// without a terminal, and nothing with --quiet (issue 30, point 4).
func TestProgressOfARun(t *testing.T) {
	testutil.SkipIfShort(t)
	defer func(i, d time.Duration) { cmdutil.ProgressInterval, cmdutil.BarDelay = i, d }(cmdutil.ProgressInterval, cmdutil.BarDelay)
	cmdutil.ProgressInterval, cmdutil.BarDelay = 0, 0
	repo := filepath.Join(t.TempDir(), "repo")
	if err := genrepo.Write(repo, 120); err != nil {
		t.Fatal(err)
	}
	run1 := func(tty bool, extra ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		args := append([]string{repo, "--out", filepath.Join(t.TempDir(), "out"), "--fail-on", "never", "--format", "json"}, extra...)
		if code := run(args, &cmdutil.IOStreams{Out: &out, ErrOut: &errOut, StderrTTY: tty}); code != cmdutil.ExitOK {
			t.Fatalf("exit %d: %s", code, errOut.String())
		}
		return errOut.String()
	}
	plain := run1(false)
	for _, want := range []string{`capreport: rendering sources \d+/\d+`, `capreport: pricing autoscalers 120/120`, `capreport: writing plots 120/120`} {
		if !regexp.MustCompile(want).MatchString(plain) {
			t.Errorf("without a terminal, no line %q in\n%.2000s", want, plain)
		}
	}
	bar := run1(true)
	for _, want := range []string{"rendering sources", "pricing autoscalers", "writing plots"} {
		if !strings.Contains(bar, want) {
			t.Errorf("on a terminal, no bar %q in\n%.2000s", want, bar)
		}
	}
	if quiet := run1(false, "--quiet"); strings.Contains(quiet, "capreport: ") {
		t.Errorf("--quiet printed progress:\n%.2000s", quiet)
	}
}
