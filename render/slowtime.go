package render

import (
	"fmt"
	"sync"
	"time"
)

// slowTime is the run's allowance of slow render time. Any source may
// take free; beyond that, up to the source timeout, it draws on an
// allowance the whole run shares, one source timeout. Without it a
// repository of slow sources costs the source timeout each (a
// kustomization of 10,000 resources takes krusty 58 s, its resources
// appended in quadratic time: ten of them kept two workers busy 5 min);
// with it, once the allowance is spent, each further source that is slow
// costs free, and the sources that render fast, the common case, are
// rendered and priced as ever. A source that runs out of time says which
// bound stopped it, and how to raise it.
type slowTime struct {
	mu    sync.Mutex
	free  time.Duration
	left  time.Duration
	limit time.Duration
}

// freeShare is the part of the source timeout any source may take
// without drawing on the allowance: 5 s by default, some ten times what
// the largest chart of the corpus takes to render; never under
// minFree (or the timeout), so that a short --render-timeout does not
// stop ordinary sources.
const (
	freeShare = 12
	minFree   = time.Second
)

func newSlowTime(timeout time.Duration) *slowTime {
	free := min(timeout, max(timeout/freeShare, minFree))
	return &slowTime{free: free, left: timeout, limit: timeout}
}

// reserve is the time a source may take now: free, and what the run has
// left of its allowance, within the source timeout; the source holds it
// until release. A nil slowTime grants the timeout alone.
func (s *slowTime) reserve(timeout time.Duration) time.Duration {
	if s == nil {
		return timeout
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	extra := min(s.limit-s.free, s.left)
	s.left -= extra
	return s.free + extra
}

// release gives back what a source granted granted did not use of the
// allowance, having taken took.
func (s *slowTime) release(granted, took time.Duration) {
	if s == nil {
		return
	}
	used := max(0, min(took, granted)-s.free)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.left += granted - s.free - used
}

// timeoutError says which bound stopped a source granted granted: the
// source timeout, or the run's allowance for slow renders.
func (s *slowTime) timeoutError(granted time.Duration, stopped string) error {
	if s == nil || granted >= s.limit {
		return fmt.Errorf("render did not finish within %s%s", granted, stopped)
	}
	return fmt.Errorf("render did not finish within %s%s: the run's allowance for slow renders (%s beyond %s a source) was spent on other sources; "+
		"raise --render-timeout to give each source, and the allowance, more", granted, stopped, s.limit, s.free)
}
