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
