package worker

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"
)

// NewSet is an empty set whose workers start with env added to this
// process's environment.
func NewSet[S, Q, R any](env ...string) *Set[S, Q, R] {
	return &Set[S, Q, R]{env: env, busy: map[string]int{}, open: map[string]int{},
		start: map[string]time.Duration{}, changed: make(chan struct{})}
}

// Do sends one request and waits for its response and its log, or for
// expired (context.DeadlineExceeded) or the context; on any error the
// caller must Kill the worker and Drop it from its pool.
func (w *Worker[S, Q, R]) Do(ctx context.Context, body Q, expired <-chan struct{}) (R, Stats, Log, error) {
	s := w.setup
	w.setup = nil
	return w.do(ctx, body, s, expired)
}

// Key is what pools share workers by: the worker command and the memory
// it may hold (set by its first setup, for the process's life).
func Key(command []string, maxMemory int64) string {
	return strings.Join(command, "\x00") + "\x00" + strconv.FormatInt(maxMemory, 10)
}

// spawn starts a worker of command for the pools of key.
func (s *Set[S, Q, R]) spawn(command []string, key string) (*Worker[S, Q, R], error) {
	w := &Worker[S, Q, R]{key: key, spawned: time.Now()}
	p, err := spawn[S, Q, R](command, s.env, func() { s.started(w) })
	if err != nil {
		return nil, err
	}
	w.Process = p
	return w, nil
}

// started notes how long w took to start (the latest start is what the
// next one will likely take: the machine's load moves it), and wakes the
// pools waiting for a worker.
func (s *Set[S, Q, R]) started(w *Worker[S, Q, R]) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.start[w.key] = time.Since(w.spawned)
	s.broadcast()
}

// broadcast wakes the pools waiting for a worker. s.mu must be held.
func (s *Set[S, Q, R]) broadcast() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// Prestart starts n workers of command before any pool is made, for the
// pools made next to take as their spares, and keeps the set's workers of
// that kind alive until release, even between one pool's close and the
// next one's making: a command that runs several builds (a diff's head and
// base, made at different moments) then shares its workers among all of
// them, and one that starts its builds later than a plain run (a diff
// resolves the base's revision first) has its first worker's start (about
// 30 ms) overlap that work. release stops the workers no open pool holds.
func (s *Set[S, Q, R]) Prestart(command []string, maxMemory int64, n int) (release func()) {
	key := Key(command, maxMemory)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.open[key]++
	for range n {
		w, err := s.spawn(command, key)
		if err != nil {
			break // each pool then starts its own, and says why it cannot
		}
		s.idle = append(s.idle, w)
	}
	return func() { s.closeKey(key) }
}

// closeKey ends one holder of the workers of key (a pool, or a
// Prestart); the last ends the idle ones (each exits when its input
// closes).
func (s *Set[S, Q, R]) closeKey(key string) {
	s.mu.Lock()
	s.open[key]--
	var ending []*Worker[S, Q, R]
	if s.open[key] == 0 {
		kept := s.idle[:0]
		for _, w := range s.idle {
			if w.key == key {
				ending = append(ending, w)
			} else {
				kept = append(kept, w)
			}
		}
		s.idle = kept
	}
	s.mu.Unlock()
	for _, w := range ending {
		w.stop()
	}
}

// Idle are the workers of key waiting for a request.
func (s *Set[S, Q, R]) Idle(key string) []*Worker[S, Q, R] {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*Worker[S, Q, R]
	for _, w := range s.idle {
		if w.key == key {
			out = append(out, w)
		}
	}
	return out
}

// Busy is how many workers of key are out on a request.
func (s *Set[S, Q, R]) Busy(key string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.busy[key]
}

// StartTime is how long a worker of key last took to start (ok: one has).
func (s *Set[S, Q, R]) StartTime(key string) (d time.Duration, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok = s.start[key]
	return d, ok
}

// SetStartTime sets what a worker of key took to start, as if measured
// (for tests).
func (s *Set[S, Q, R]) SetStartTime(key string, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.start[key] = d
}

// hasKey reports whether a worker of key is idle or out on a request.
// s.mu must be held.
func (s *Set[S, Q, R]) hasKey(key string) bool {
	return s.busy[key] > 0 || slices.ContainsFunc(s.idle, func(w *Worker[S, Q, R]) bool { return w.key == key })
}
