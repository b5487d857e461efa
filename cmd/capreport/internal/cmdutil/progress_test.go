package cmdutil

import (
	"bytes"
	"testing"
	"time"
)

// Without a terminal, progress is a plain line at most every interval and
// one when a phase that printed ends; a phase faster than the interval
// prints nothing; with --quiet nothing at all.
func TestProgressLines(t *testing.T) {
	var errOut bytes.Buffer
	clock := time.Unix(0, 0)
	p := NewProgress(&IOStreams{ErrOut: &errOut}, false, func() time.Time { return clock })
	step := func(d time.Duration, phase string, done, total int) {
		clock = clock.Add(d)
		p.Update(phase, done, total)
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
	if q := NewProgress(&IOStreams{ErrOut: &errOut}, true, time.Now); q != nil || q.Fn() != nil {
		t.Error("--quiet made a reporter")
	}
	q := (*Progress)(nil)
	q.Update("any", 1, 1) // a nil reporter reports nothing, and does not panic
}
