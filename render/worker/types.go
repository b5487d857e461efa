package worker

import (
	"sync"
	"time"
)

// A Set is a process's live worker processes and what the pools open on
// them need to share them: the idle ones, and per kind of worker (Key)
// how many are out on a request, how many pools and Prestarts are open,
// and how long a worker last took to start.
//
// A diff builds its head and its base in one process, and a worker that
// served a request of the head serves one of the base next, set up again
// with the base's setup (request.Setup), instead of a second process
// paying a start. Most of a start is the worker's package initialization
// (Helm's and client-go's schemes, a values-schema compiler: about 30 ms
// of CPU), and a one-chart diff keeps a two-core machine busy: sharing
// saved a seventh of its CPU (0.05 of 0.37 s).
type Set[S, Q, R any] struct {
	env []string // added to each worker's environment

	mu    sync.Mutex
	idle  []*Worker[S, Q, R]
	busy  map[string]int           // per key: out on a request
	open  map[string]int           // per key: open pools and Prestarts
	start map[string]time.Duration // per key: the latest start seen
	// changed is closed, and replaced, when a worker is put back, dies or
	// has started: a waiting pool looks again.
	changed chan struct{}
}

// A Worker is a Process as its Set shares it.
type Worker[S, Q, R any] struct {
	*Process[S, Q, R]
	key     string
	owner   *Pool[S, Q, R] // the pool whose setup it has; nil before its first
	setup   *setup[S]      // to send with its next request: another pool's
	spawned time.Time
}

// A Pool is one user's way to a Set's workers (a render's): its setup,
// sent to each worker it takes. A worker that failed a request is killed,
// and the next request takes another.
//
// A pool takes an idle worker (one with its setup first, then a fresh
// one, then another pool's), else starts one. A pool made while no worker
// of its kind is live starts a spare, which pays its start while its user
// does other work (a render discovers its sources and checks its cache),
// instead of after a request is found to be needed. A pool that holds no
// worker while another pool's is busy waits first for that one, at most
// as long as a worker last took to start in this process: a request that
// waits and then starts a worker anyway is late by at most that start,
// and one whose wait ends sooner is served sooner than a new worker could
// serve it, and costs no start.
type Pool[S, Q, R any] struct {
	set   *Set[S, Q, R]
	init  setup[S]
	cmd   []string
	key   string
	inUse int // workers out on this pool's requests (guarded by set.mu)
}
