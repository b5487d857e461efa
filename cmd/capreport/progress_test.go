package main

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/capreport/capreport/internal/genrepo"
	"github.com/capreport/capreport/internal/testutil"
)

// Without a terminal, progress is a plain line at most every interval and
// one when a phase that printed ends; a phase faster than the interval
// prints nothing; with --quiet nothing at all.
func TestProgressLines(t *testing.T) {
	var errOut bytes.Buffer
	clock := time.Unix(0, 0)
	p := newProgress(&streams{ErrOut: &errOut}, false, func() time.Time { return clock })
	step := func(d time.Duration, phase string, done, total int) {
		clock = clock.Add(d)
		p.update(phase, done, total)
	}
	step(time.Second, "rendering sources", 1, 3)
	step(time.Second, "rendering sources", 3, 3) // 2 s in: quiet
	step(4*time.Second, "pricing autoscalers", 10, 120)
	step(time.Second, "pricing autoscalers", 20, 120)
	step(5*time.Second, "pricing autoscalers", 90, 120)
	step(time.Second, "pricing autoscalers", 120, 120)
	want := "capreport: pricing autoscalers 10/120\ncapreport: pricing autoscalers 90/120\ncapreport: pricing autoscalers 120/120\n"
	if got := errOut.String(); got != want {
		t.Errorf("printed\n%s\nwant\n%s", got, want)
	}
	if q := newProgress(&streams{ErrOut: &errOut}, true, time.Now); q != nil || q.fn() != nil {
		t.Error("--quiet made a reporter")
	}
	q := (*progress)(nil)
	q.update("any", 1, 1) // a nil reporter reports nothing, and does not panic
}

// A 120-autoscaler run with --out says how far each phase is, with and
// without a terminal, and nothing with --quiet (issue 30, point 4).
func TestProgressOfARun(t *testing.T) {
	testutil.SkipIfShort(t)
	defer func(i, d time.Duration) { progressInterval, barDelay = i, d }(progressInterval, barDelay)
	progressInterval, barDelay = 0, 0
	repo := filepath.Join(t.TempDir(), "repo")
	if err := genrepo.Write(repo, 120); err != nil {
		t.Fatal(err)
	}
	run1 := func(tty bool, extra ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		args := append([]string{repo, "--out", filepath.Join(t.TempDir(), "out"), "--fail-on", "never", "--format", "json"}, extra...)
		if code := run(args, &streams{Out: &out, ErrOut: &errOut, stderrTTY: tty}); code != exitOK {
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
