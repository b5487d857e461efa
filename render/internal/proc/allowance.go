package proc

import (
	"fmt"
	"sync"
	"time"
)

// Allowance is the run's allowance of slow render time. Any source may
// take free; beyond that, up to the source timeout, it draws on an
// allowance the whole run shares, one source timeout, a step at a time
// while it runs. Without it a repository of slow sources costs the
// source timeout each (a kustomization of 10,000 resources takes krusty
// 58 s, its resources appended in quadratic time: ten of them kept two
// workers busy 5 min); with it, once the allowance is spent, each
// further source that is slow costs free, and the sources that render
// fast, the common case, are rendered and priced as ever. A source that
// runs out of time says which bound stopped it, and how to raise it.
//
// Sources draw as they run rather than reserving the allowance when
// they start, so that free can be small: a source holding the whole
// allowance up front would stop every slow source beside it at free,
// however little it went on to use. So a run of N sources takes at most
// N×free plus one timeout of render time, shared by its workers.
type Allowance struct {
	mu    sync.Mutex
	free  time.Duration
	left  time.Duration
	limit time.Duration
	step  time.Duration // drawStep, but for tests
}

// minFree is the time any source may take without drawing on the
// allowance: 1 s (or all of a shorter timeout), more than the corpus's
// eighteen renders take together (0.44 s of CPU, docs/architecture.md). drawStep is how much of the
// allowance a source takes at a time once it has used its free time.
const (
	minFree  = time.Second
	drawStep = 250 * time.Millisecond
)

// NewAllowance is a run's allowance for a source timeout of timeout: one
// timeout to share, beyond a free time of minFree (or all of a shorter
// timeout) a source.
func NewAllowance(timeout time.Duration) *Allowance {
	free := min(timeout, minFree)
	return &Allowance{free: free, left: timeout, limit: timeout, step: drawStep}
}

// Lease is one source's hold on render time: Expired is closed once the
// source has used its free time and could draw no more of the
// allowance, or reached the source timeout.
type Lease struct {
	mu      sync.Mutex
	s       *Allowance
	start   time.Time
	limit   time.Duration
	granted time.Duration // free, and what it drew of the allowance
	timer   *time.Timer
	expired chan struct{}
	ended   bool
}

// Begin starts a source's clock: it may take timeout, within the run's
// allowance. A nil Allowance grants the timeout alone.
func (s *Allowance) Begin(timeout time.Duration) *Lease {
	l := &Lease{s: s, start: time.Now(), limit: timeout, granted: timeout, expired: make(chan struct{})}
	if s != nil {
		l.limit = min(timeout, s.limit)
		l.granted = min(l.limit, s.free)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.timer = time.AfterFunc(l.granted, l.draw)
	return l
}

// Expired is closed when the source is out of time.
func (l *Lease) Expired() <-chan struct{} { return l.expired }

// draw runs when the source has used what it was granted: it takes
// another step of the allowance, or closes Expired.
func (l *Lease) draw() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ended {
		return
	}
	step := l.s.take(min(l.s.stepSize(), l.limit-l.granted))
	if step <= 0 {
		close(l.expired)
		return
	}
	l.granted += step
	l.timer.Reset(time.Until(l.start.Add(l.granted)))
}

// End stops the clock and gives back what the source drew and did not
// use; it returns the time the source was granted. Later calls only
// return it.
func (l *Lease) End() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ended {
		return l.granted
	}
	l.ended = true
	l.timer.Stop()
	if l.s != nil {
		drawn := l.granted - min(l.limit, l.s.free)
		used := min(max(time.Since(l.start)-l.s.free, 0), drawn)
		l.s.take(used - drawn)
	}
	return l.granted
}

// take draws up to want from the allowance (or gives back -want) and
// returns what it drew; a nil Allowance has no allowance.
func (s *Allowance) take(want time.Duration) time.Duration {
	if s == nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	got := min(want, s.left)
	s.left -= got
	return got
}

// stepSize is how much a Lease draws at a time; a nil Allowance has no
// allowance to draw on.
func (s *Allowance) stepSize() time.Duration {
	if s == nil {
		return 0
	}
	return s.step
}

// TimeoutError says which bound stopped a source granted granted: the
// source timeout, or the run's allowance for slow renders.
func (s *Allowance) TimeoutError(granted time.Duration, stopped string) error {
	if s == nil || granted >= s.limit {
		return fmt.Errorf("render did not finish within %s%s", granted, stopped)
	}
	return fmt.Errorf("render did not finish within %s%s: the run's allowance for slow renders (%s beyond %s a source) was spent on other sources; "+
		"raise --render-timeout to give each source, and the allowance, more", granted, stopped, s.limit, s.free)
}
