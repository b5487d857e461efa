package render

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// workerPool is one Render's way to its worker processes. A worker that
// failed a request is killed, and the next request takes another.
//
// The processes are the process's (workers), shared by the pools open at
// once: a diff builds its head and its base in one process, and a worker
// that rendered a source of the head renders one of the base next, set up
// again with the base's root (workerRequest.Setup), instead of a second
// process paying a start. Most of a start is the worker's package
// initialization (Helm's and client-go's schemes, a values-schema
// compiler: about 30 ms of CPU), and a one-chart diff keeps a two-core
// machine busy: sharing saved a seventh of its CPU (0.05 of 0.37 s).
//
// A pool takes an idle worker (one with its setup first, then a fresh
// one, then another pool's), else starts one. A pool made while no worker
// of its kind is live starts a spare, which pays its start while the run
// discovers its sources and checks the render cache, instead of after a
// source is found to need a render. A pool that holds no worker while
// another pool's is busy waits first for that one, at most as long as a
// worker last took to start in this process: a source that waits and then
// starts a worker anyway is late by at most that start, and one whose wait
// ends sooner renders sooner than a new worker could, and costs no start.
type workerPool struct {
	init  workerInit
	cmd   []string
	key   string
	inUse int // workers out on this pool's requests (guarded by workers)
}

// workers are the process's live worker processes that wait for a
// request, and what the pools need to share them.
var workers = struct {
	sync.Mutex
	idle  []*worker
	busy  map[string]int           // per command key: out on a request
	open  map[string]int           // per command key: open pools and Prestarts
	start map[string]time.Duration // per command key: the latest start seen
	// changed is closed, and replaced, when a worker is put back, dies or
	// has started: a waiting pool looks again.
	changed chan struct{}
}{busy: map[string]int{}, open: map[string]int{}, start: map[string]time.Duration{}, changed: make(chan struct{})}

// workerKey is what pools share workers by: the worker command and the
// memory it may hold (set by its first setup, for the process's life).
func workerKey(iso Isolation) string {
	return strings.Join(iso.Command, "\x00") + "\x00" + strconv.FormatInt(iso.memory(), 10)
}

func newWorkerPool(rd *renderer) *workerPool {
	iso := rd.opts.Isolation
	if iso.MaxMemory <= 0 {
		iso.MaxMemory = DefaultSourceMemory
	}
	opts := rd.opts
	opts.FS = nil                             // the disk: a worker opens it again (gob cannot carry a file system)
	opts.Checkout, opts.CheckFirst = nil, nil // the render cache's, which stays in this process
	p := &workerPool{cmd: iso.Command, key: workerKey(iso),
		init: workerInit{Root: rd.repo.Root, Scope: rd.scope, Opts: opts, MaxMemory: iso.MaxMemory}}
	// Under the lock: two pools made at once must not both start a spare.
	workers.Lock()
	defer workers.Unlock()
	workers.open[p.key]++
	if workers.busy[p.key] > 0 || slices.ContainsFunc(workers.idle, func(w *worker) bool { return w.key == p.key }) {
		return p
	}
	// The spare (if it cannot start, get says why).
	if spare, err := spawnWorker(iso.Command, p.key); err == nil {
		workers.idle = append(workers.idle, spare)
	}
	return p
}

// get returns a worker set up for this pool; an error is the context's
// when it ended while the pool waited.
func (p *workerPool) get(ctx context.Context) (*worker, error) {
	asked := time.Now()
	for {
		workers.Lock()
		if w := p.takeIdle(); w != nil {
			p.take()
			workers.Unlock()
			if p.setUp(w) == nil {
				return w, nil
			}
			return p.start() // begin killed it: one in its place
		}
		wait, waitFor := p.borrowWait(asked)
		changed := workers.changed
		if !wait {
			p.take()
		}
		workers.Unlock()
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
// one started now would be ready later than the busy one). workers must
// be locked.
func (p *workerPool) borrowWait(asked time.Time) (bool, time.Duration) {
	if p.inUse > 0 || workers.busy[p.key] == 0 {
		return false, 0
	}
	start, ok := workers.start[p.key]
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

// take counts a worker out on this pool's request. workers must be locked.
func (p *workerPool) take() {
	p.inUse++
	workers.busy[p.key]++
}

// start starts a worker for a request take counted.
func (p *workerPool) start() (*worker, error) {
	w, err := spawnWorker(p.cmd, p.key)
	if err == nil {
		err = w.begin(p.init)
	}
	if err != nil {
		p.drop()
		return nil, err
	}
	w.owner = p
	return w, nil
}

// workerStarted notes how long w took to start (the latest start is what
// the next one will likely take: the machine's load moves it), and wakes
// the pools waiting for a worker.
func workerStarted(w *worker) {
	workers.Lock()
	defer workers.Unlock()
	workers.start[w.key] = time.Since(w.spawned)
	broadcast()
}

// broadcast wakes the pools waiting for a worker. workers must be locked.
func broadcast() {
	close(workers.changed)
	workers.changed = make(chan struct{})
}

// takeIdle removes and returns the idle worker this pool would best take:
// one with its setup, else a fresh one, else another pool's; nil if none.
func (p *workerPool) takeIdle() *worker {
	best := -1
	rank := func(w *worker) int {
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
	for i, w := range workers.idle {
		if r := rank(w); r > 0 && (best < 0 || r > rank(workers.idle[best])) {
			best = i
		}
	}
	if best < 0 {
		return nil
	}
	w := workers.idle[best]
	workers.idle = append(workers.idle[:best], workers.idle[best+1:]...)
	return w
}

// setUp gives w this pool's setup: as its first message if it has none,
// with its next request if another pool's.
func (p *workerPool) setUp(w *worker) error {
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

// put returns a worker that served a request to the idle ones.
func (p *workerPool) put(w *worker) {
	workers.Lock()
	workers.idle = append(workers.idle, w)
	p.release()
	workers.Unlock()
}

// drop accounts for a worker of this pool's that was killed or never started.
func (p *workerPool) drop() {
	workers.Lock()
	p.release()
	workers.Unlock()
}

// release ends one of the pool's requests and wakes the pools waiting for
// a worker. workers must be locked.
func (p *workerPool) release() {
	p.inUse--
	workers.busy[p.key]--
	broadcast()
}

// close ends the pool (closeWorkers).
func (p *workerPool) close() { closeWorkers(p.key) }

// closeWorkers ends one holder of the workers of key (a pool, or a
// Prestart); the last ends the idle ones (each exits when its input
// closes).
func closeWorkers(key string) {
	workers.Lock()
	workers.open[key]--
	var ending []*worker
	if workers.open[key] == 0 {
		kept := workers.idle[:0]
		for _, w := range workers.idle {
			if w.key == key {
				ending = append(ending, w)
			} else {
				kept = append(kept, w)
			}
		}
		workers.idle = kept
	}
	workers.Unlock()
	for _, w := range ending {
		w.stop()
	}
}
