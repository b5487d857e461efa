package worker

import (
	"context"
	"time"
)

// NewPool opens a pool of command's workers, each set up with su under
// limits; Close ends it.
func (s *Set[S, Q, R]) NewPool(command []string, su S, limits Limits) *Pool[S, Q, R] {
	p := &Pool[S, Q, R]{set: s, cmd: command, key: Key(command, limits.MaxMemory), init: setup[S]{Setup: su, Limits: limits}}
	// Under the lock: two pools made at once must not both start a spare.
	s.mu.Lock()
	defer s.mu.Unlock()
	s.open[p.key]++
	if s.hasKey(p.key) {
		return p
	}
	// The spare (if it cannot start, Get says why).
	if spare, err := s.spawn(command, p.key); err == nil {
		s.idle = append(s.idle, spare)
	}
	return p
}

// Key is the kind of worker the pool takes (Key).
func (p *Pool[S, Q, R]) Key() string { return p.key }

// Get returns a worker set up for this pool; an error is the context's
// when it ended while the pool waited, or why no worker could start.
func (p *Pool[S, Q, R]) Get(ctx context.Context) (*Worker[S, Q, R], error) {
	s := p.set
	asked := time.Now()
	for {
		s.mu.Lock()
		if w := p.takeIdle(); w != nil {
			p.take()
			s.mu.Unlock()
			if p.setUp(w) == nil {
				return w, nil
			}
			return p.start() // begin killed it: one in its place
		}
		wait, waitFor := p.borrowWait(asked)
		changed := s.changed
		if !wait {
			p.take()
		}
		s.mu.Unlock()
		if !wait {
			return p.start()
		}
		if err := waitChange(ctx, changed, waitFor); err != nil {
			return nil, err
		}
	}
}

// borrowWait reports whether this pool should wait for another pool's
// busy worker rather than start one, and for how long at most before it
// looks again (0: until something changes; no worker has started yet, so
// one started now would be ready later than the busy one). set.mu must
// be held.
func (p *Pool[S, Q, R]) borrowWait(asked time.Time) (bool, time.Duration) {
	s := p.set
	if p.inUse > 0 || s.busy[p.key] == 0 {
		return false, 0
	}
	start, ok := s.start[p.key]
	if !ok {
		return true, 0
	}
	left := time.Until(asked.Add(start))
	return left > 0, left
}

// waitChange waits until changed closes, or for d when d is positive, or
// until ctx ends (its error).
func waitChange(ctx context.Context, changed chan struct{}, d time.Duration) error {
	var timeout <-chan time.Time
	if d > 0 {
		timer := time.NewTimer(d)
		defer timer.Stop()
		timeout = timer.C
	}
	select {
	case <-changed:
	case <-timeout:
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}

// take counts a worker out on this pool's request. set.mu must be held.
func (p *Pool[S, Q, R]) take() {
	p.inUse++
	p.set.busy[p.key]++
}

// start starts a worker for a request take counted.
func (p *Pool[S, Q, R]) start() (*Worker[S, Q, R], error) {
	w, err := p.set.spawn(p.cmd, p.key)
	if err == nil {
		if err = w.begin(p.init); err != nil {
			w = nil
		}
	}
	if err != nil {
		p.Drop()
		return nil, err
	}
	w.owner = p
	return w, nil
}

// takeIdle removes and returns the idle worker this pool would best take:
// one with its setup, else a fresh one, else another pool's; nil if none.
// set.mu must be held.
func (p *Pool[S, Q, R]) takeIdle() *Worker[S, Q, R] {
	s := p.set
	best := -1
	rank := func(w *Worker[S, Q, R]) int {
		switch {
		case w.key != p.key:
			return 0
		case w.owner == p:
			return 3
		case w.owner == nil:
			return 2
		}
		return 1
	}
	for i, w := range s.idle {
		if r := rank(w); r > 0 && (best < 0 || r > rank(s.idle[best])) {
			best = i
		}
	}
	if best < 0 {
		return nil
	}
	w := s.idle[best]
	s.idle = append(s.idle[:best], s.idle[best+1:]...)
	return w
}

// setUp gives w this pool's setup: as its first message if it has none,
// with its next request if another pool's.
func (p *Pool[S, Q, R]) setUp(w *Worker[S, Q, R]) error {
	switch w.owner {
	case p:
		return nil
	case nil:
		if err := w.begin(p.init); err != nil {
			return err
		}
	default:
		w.setup = &p.init
	}
	w.owner = p
	return nil
}

// Put returns a worker that served a request to the idle ones.
func (p *Pool[S, Q, R]) Put(w *Worker[S, Q, R]) {
	p.set.mu.Lock()
	p.set.idle = append(p.set.idle, w)
	p.release()
	p.set.mu.Unlock()
}

// Drop accounts for a worker of this pool's that was killed or never
// started.
func (p *Pool[S, Q, R]) Drop() {
	p.set.mu.Lock()
	p.release()
	p.set.mu.Unlock()
}

// release ends one of the pool's requests and wakes the pools waiting for
// a worker. set.mu must be held.
func (p *Pool[S, Q, R]) release() {
	p.inUse--
	p.set.busy[p.key]--
	p.set.broadcast()
}

// Close ends the pool; the set's last holder of its kind of worker ends
// the idle ones.
func (p *Pool[S, Q, R]) Close() { p.set.closeKey(p.key) }

// SetUnpaced turns the pacer of the workers this pool sets up from now on
// off or on (the tests compare).
func (p *Pool[S, Q, R]) SetUnpaced(off bool) { p.init.Limits.Unpaced = off }
