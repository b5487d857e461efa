package render

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/internal/testutil"
)

// TestSlowTimeAllowance: a source may take free, and up to the source
// timeout while the run's allowance lasts, drawing on it a step at a time
// as it runs; what a source drew and did not use returns to the run.
func TestSlowTimeAllowance(t *testing.T) {
	const ms = time.Millisecond
	s := &slowTime{free: 20 * ms, left: 200 * ms, limit: 200 * ms, step: 10 * ms}

	fast := s.begin(200 * ms) // ends within its free time: draws nothing
	time.Sleep(5 * ms)
	if g := fast.end(); g != 20*ms || s.left != 200*ms {
		t.Errorf("a fast source: granted %s, allowance left %s; want 20ms, 200ms", g, s.left)
	}

	spin := s.begin(200 * ms) // runs to the source timeout
	<-spin.Expired()
	if g := spin.end(); g != 200*ms || s.left != 20*ms {
		t.Errorf("a source that never ends: granted %s, allowance left %s; want 200ms, 20ms", g, s.left)
	}
	if g := spin.end(); g != 200*ms || s.left != 20*ms {
		t.Errorf("ended twice: granted %s, allowance left %s", g, s.left)
	}

	coarse := &slowTime{free: 20 * ms, left: 200 * ms, limit: 200 * ms, step: 100 * ms}
	short := coarse.begin(200 * ms) // draws a step, ends inside it, gives back the rest
	time.Sleep(30 * ms)
	if g := short.end(); g != 120*ms || coarse.left <= 100*ms || coarse.left > 190*ms {
		t.Errorf("a source that ended inside its first step: granted %s, allowance left %s; want 120ms, and back all but the 10ms or more it used", g, coarse.left)
	}

	if err := s.timeoutError(20*ms, ""); !strings.Contains(err.Error(), "allowance for slow renders (200ms beyond 20ms a source)") {
		t.Errorf("timeout past the allowance: %v", err)
	}
	if err := s.timeoutError(200*ms, ""); err.Error() != "render did not finish within 200ms" {
		t.Errorf("timeout at the source timeout: %v", err)
	}
	if d := newSlowTime(60 * time.Second); d.free != time.Second || d.left != 60*time.Second {
		t.Errorf("the default timeout: free %s, allowance %s; want 1s, 1m0s", d.free, d.left)
	}
	if d := newSlowTime(200 * ms); d.free != 200*ms {
		t.Errorf("a 200 ms timeout: free %s, want all of it", d.free)
	}
	var none *slowTime
	alone := none.begin(30 * ms)
	<-alone.Expired()
	if g := alone.end(); g != 30*ms {
		t.Errorf("no allowance: granted %s", g)
	}
}

// TestSlowTimeSharedAsItRuns: two slow sources that start together share
// the allowance between them as they run: each draws on it, and together
// they draw all of it. (Reserved up front, the first would have taken it
// all, and the second been stopped at its free time.)
func TestSlowTimeSharedAsItRuns(t *testing.T) {
	const ms = time.Millisecond
	s := &slowTime{free: 20 * ms, left: 200 * ms, limit: 200 * ms, step: 10 * ms}
	a, b := s.begin(200*ms), s.begin(200*ms)
	<-a.Expired()
	<-b.Expired()
	drewA, drewB := a.end()-20*ms, b.end()-20*ms
	if drewA+drewB != 200*ms || s.left != 0 {
		t.Errorf("drew %s and %s, %s left; want 200ms in all, none left", drewA, drewB, s.left)
	}
	if drewA < 20*ms || drewB < 20*ms {
		t.Errorf("drew %s and %s: one source starved the other", drewA, drewB)
	}
}

// TestSlowSourcesShareOneAllowance: of five charts that each spin past
// the source timeout, the ones the two workers take first draw on the
// run's allowance until it is spent, and every later one is stopped once
// its free time is up, saying the run's allowance was spent; the good
// source beside them is rendered, and the run takes about one timeout
// and the free time of each later source, not five timeouts.
func TestSlowSourcesShareOneAllowance(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{"good/hpa.yaml": goodHPA}
	for i := range 5 {
		for name, body := range slowChart() {
			files[fmt.Sprintf("c%d/%s", i, strings.TrimPrefix(name, "c/"))] = body
		}
	}
	testutil.WriteTree(t, root, files)
	opts := isolated(DefaultOptions())
	setLoops(8000)(&opts)                        // 64M template iterations: far past 2.4 s
	opts.SourceTimeout = 2400 * time.Millisecond // free 1 s, allowance 2.4 s
	start := time.Now()
	res, err := Render(context.Background(), root, opts)
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	drew, atFree := 0, 0
	for _, f := range res.Findings {
		switch {
		case f.Check != check.RenderTimeout:
		case strings.Contains(f.Message, "within 1s and was stopped: the run's allowance for slow renders (2.4s beyond 1s a source) was spent"):
			atFree++
		default: // stopped at the timeout, or when the allowance ran out
			drew++
		}
	}
	if drew < 1 || atFree < 3 || drew+atFree != 5 {
		t.Errorf("%d drew on the allowance, %d stopped at their free time; want 1 or more, 3 or more, 5 in all: %+v", drew, atFree, res.Findings)
	}
	if took > 20*time.Second {
		t.Errorf("the run took %s: the allowance did not bound it", took)
	}
	if !hasObject(res, "HorizontalPodAutoscaler", "web", "web") {
		t.Errorf("the good source beside them was not rendered")
	}
	assertNoWorkersLeft(t)
}
