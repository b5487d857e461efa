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
// however little it went on to use.
//
// The free time itself shrinks once many sources have used all of it:
// after fullFreeSources have, each further one halves it, down to
// freeFloor. A source that renders within its free time never counts, so
// a repository of honest sources keeps free whole (kubeflow/manifests'
// 95 sources: median 11 ms, the slowest 0.8 s), and one of slow sources
// that spend the allowance and then spin costs freeFloor each, not free
// (200 charts that spin under a 5 s timeout: 103 s before, shared by two
// workers). So N sources that spin take at most fullFreeSources×free,
// one timeout and N×freeFloor of render time, shared by the workers;
// sources that finish within their free time never count, and cost what
// they take, up to free each.
type Allowance struct {
	mu    sync.Mutex
	free  time.Duration
	floor time.Duration
	left  time.Duration
	limit time.Duration
	step  time.Duration // drawStep, but for tests
	used  int           // sources that used all of their free time
}

// minFree is the time any source may take without drawing on the
// allowance: 1 s (or all of a shorter timeout), more than the corpus's
// eighteen renders take together (0.44 s of CPU, docs/architecture.md). drawStep is how much of the
// allowance a source takes at a time once it has used its free time.
// fullFreeSources is how many sources may use all of their free time
// before it shrinks, and freeFloor the least it shrinks to: more than
// all but one of kubeflow/manifests' renders take on an idle machine
// (its 90th percentile is 0.1 s), so a source stopped at the floor is
// slow beside real ones.
const (
	minFree         = time.Second
	drawStep        = 250 * time.Millisecond
	fullFreeSources = 10
	freeFloor       = 250 * time.Millisecond
)

// NewAllowance is a run's allowance for a source timeout of timeout: one
// timeout to share, beyond a free time of minFree (or all of a shorter
// timeout) a source.
func NewAllowance(timeout time.Duration) *Allowance {
	free := min(timeout, minFree)
	return &Allowance{free: free, floor: min(free, freeFloor), left: timeout, limit: timeout, step: drawStep}
}

// freeNow is the free time of a source that starts now: free until
// fullFreeSources sources have used all of theirs, then halved for each
// further one, down to floor. s.mu must be held.
func (s *Allowance) freeNow() time.Duration {
	halvings := s.used - fullFreeSources + 1
	switch {
	case halvings <= 0:
		return s.free
	case halvings >= 16 || s.free>>halvings <= s.floor:
		return s.floor
	}
	return s.free >> halvings
}

// freeFor is the free time of a source that starts now; a nil Allowance
// has none.
func (s *Allowance) freeFor() time.Duration {
	if s == nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.freeNow()
}

// countUsed counts a source that used all of its free time; a nil
// Allowance counts nothing.
func (s *Allowance) countUsed() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.used++
}

// Lease is one source's hold on render time: Expired is closed once the
// source has used its free time and could draw no more of the
// allowance, or reached the source timeout.
type Lease struct {
	mu      sync.Mutex
	s       *Allowance
	start   time.Time
	limit   time.Duration
	free    time.Duration // its free time, within limit
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
		l.free = min(l.limit, s.freeFor())
		l.granted = l.free
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
	if l.granted == l.free {
		l.s.countUsed()
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
		drawn := l.granted - l.free
		used := min(max(time.Since(l.start)-l.free, 0), drawn)
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
	shrunk := ""
	if granted < s.free {
		shrunk = fmt.Sprintf(", and %d sources had used all of theirs, so each further one has less (%s at least)", fullFreeSources, s.floor)
	}
	return fmt.Errorf("render did not finish within %s%s: the run's allowance for slow renders (%s beyond %s a source) was spent on other sources%s; "+
		"raise --render-timeout to give each source, and the allowance, more", granted, stopped, s.limit, s.free, shrunk)
}
