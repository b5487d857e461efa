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
// timeout while the run's allowance lasts; what a source did not use
// returns to it.
func TestSlowTimeAllowance(t *testing.T) {
	s := newSlowTime(60 * time.Second) // free 5 s, allowance 60 s
	steps := []struct {
		took      time.Duration
		wantGrant time.Duration
	}{
		{60 * time.Second, 60 * time.Second}, // draws 55 s: 5 s left
		{2 * time.Second, 10 * time.Second},  // fast: draws nothing
		{60 * time.Second, 10 * time.Second}, // draws the last 5 s
		{60 * time.Second, 5 * time.Second},  // free alone
	}
	for i, st := range steps {
		g := s.reserve(60 * time.Second)
		if g != st.wantGrant {
			t.Errorf("source %d: granted %s, want %s", i, g, st.wantGrant)
		}
		s.release(g, st.took)
	}
	if err := s.timeoutError(5*time.Second, ""); !strings.Contains(err.Error(), "allowance for slow renders (1m0s beyond 5s a source)") {
		t.Errorf("timeout past the allowance: %v", err)
	}
	if err := s.timeoutError(60*time.Second, ""); err.Error() != "render did not finish within 1m0s" {
		t.Errorf("timeout at the source timeout: %v", err)
	}
	if short := newSlowTime(200 * time.Millisecond); short.reserve(200*time.Millisecond) != 200*time.Millisecond || short.free != 200*time.Millisecond {
		t.Errorf("a 200 ms timeout: free %s, want all of it", short.free)
	}
	var none *slowTime
	if g := none.reserve(time.Minute); g != time.Minute {
		t.Errorf("no allowance: granted %s", g)
	}
}

// TestSlowSourcesShareOneAllowance: of five charts that each spin past
// the source timeout, the first is stopped at it and the later ones
// once the free time is up, saying the run's allowance was spent; the
// good source beside them is rendered.
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
	res, err := Render(context.Background(), root, opts)
	if err != nil {
		t.Fatal(err)
	}
	full, spent := 0, 0
	for _, f := range res.Findings {
		if f.Check != check.RenderTimeout {
			continue
		}
		switch {
		case strings.Contains(f.Message, "within 2.4s"):
			full++
		case strings.Contains(f.Message, "allowance for slow renders"):
			spent++
		}
	}
	if full < 1 || spent < 3 || full+spent != 5 {
		t.Errorf("%d stopped at the source timeout, %d past the allowance; want 1 or more, 3 or more, 5 in all: %+v", full, spent, res.Findings)
	}
	if !hasObject(res, "HorizontalPodAutoscaler", "web", "web") {
		t.Errorf("the good source beside them was not rendered")
	}
	assertNoWorkersLeft(t)
}
