// Package proc is the process mechanics of a render worker: the process
// group that ends with it, the address-space limit and the heap pacing
// that bound its memory, the tap that files its standard error under the
// request it served, its profile, and the run's allowance of slow render
// time that says when a source has run too long. It knows nothing of what
// a worker renders.
package proc

import (
	"runtime/debug"
	"sync"
)

// HeapPacer holds a worker's memory limit close to what its live heap
// needs while it renders a Helm chart or plain YAML, so that the pages the
// collector frees go back to the system during the render instead of
// staying resident; and it keeps, for tests and profiles, the most memory
// the worker held from the system during a render.
//
// Go's collector with its default goal lets the heap grow to twice what it
// found live, and returns freed pages to the system only slowly, in the
// background. A template that builds large strings leaves the page heap
// fragmented (fmt's buffer doubles to 16 MB for a 10 MB string, which is
// then copied): bitnami's envoy-gateway stringifies its root context,
// crds/ files included, six times, and the next large string takes fresh
// pages while the freed ones are still resident, so the worker's anonymous
// memory stood 17 MB above its largest heap, and its peak RSS at helm
// template's. Below a memory limit the allocator returns free pages
// before it takes new ones, and the collector starts its cycle early
// enough to stay under the limit. The limit follows the live heap (the
// collector's own measure, sampled by the watchdog every few
// milliseconds): paceFactor times it plus paceSlack for the runtime's own
// memory, never below paceFloor, never above the worker's budget limit. A
// render whose live heap is small is paced as Go paces it; a large one
// collects when its heap is 1.5 times the live one rather than twice, and
// does not keep what it collected. On envoy-gateway, rendered alone, the
// worker's peak RSS went from 103-106 MB to 91 MB (helm template: 102-106
// MB) for the same CPU within its spread; a floor of 32 MiB saved 3 MB
// more for a fifth more CPU (the freed pages are faulted in again).
//
// Kustomize builds are exempt: krusty's garbage dies young and a worker
// builds them with a goal of three times the live heap (render's kustomizeGCPercent),
// for their CPU.
type HeapPacer struct {
	mu      sync.Mutex
	Ceiling int64 // the worker's limit outside a paced render
	Off     bool  // never pace (the worker's Unpaced)
	pacing  bool
	limit   int64 // the limit last set while pacing
	peak    int64 // the most memory held from the system during this render
}

const (
	paceFloor  = 40 << 20
	paceSlack  = 8 << 20
	paceFactor = 1.5
)

// PacedLimit is the memory limit for a live heap, at most ceiling.
func PacedLimit(live uint64, ceiling int64) int64 {
	return min(max(int64(float64(live)*paceFactor)+paceSlack, paceFloor), ceiling)
}

// begin starts a render: paced when pace is set.
func (p *HeapPacer) Begin(pace bool, live uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.peak = 0
	p.pacing = pace && !p.Off
	p.limit = 0
	if p.pacing {
		p.setLocked(live)
	}
}

// end ends a render, restores the worker's limit and returns the most
// memory the worker held during it.
func (p *HeapPacer) End() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pacing {
		p.pacing = false
		debug.SetMemoryLimit(p.Ceiling)
	}
	return p.peak
}

// observe follows a sample of the live heap and of the memory held.
func (p *HeapPacer) Observe(live uint64, held int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.peak = max(p.peak, held)
	if p.pacing {
		p.setLocked(live)
	}
}

func (p *HeapPacer) setLocked(live uint64) {
	if limit := PacedLimit(live, p.Ceiling); limit != p.limit {
		p.limit = limit
		debug.SetMemoryLimit(limit)
	}
}
