package proc

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// MemoryMarker is the line a worker writes to its standard error when
// its watchdog stops it.
const MemoryMarker = "capreport render worker: memory budget exceeded"

// exitMemory is the status a worker stopped by its watchdog exits with.
const exitMemory = 70

// MaxStack bounds a render's goroutine stack. Real templates nest a few
// hundred frames; a tpl that calls itself would otherwise grow the stack
// to the runtime's 1 GB default before failing. Helm's engine gives no
// hook to count tpl depth, so the stack limit is that depth limit: the
// worker dies with "stack overflow" and its parent reports the source.
const MaxStack = 128 << 20

// youngGCPercent is the collector's goal while a worker builds a source
// whose garbage dies young (a Kustomize build, Collect), against Go's 100
// for the rest. krusty's garbage dies
// young (every transformer copies the nodes it rewrites, kyaml's reader
// copies each mapping at every level) while what stays live is the
// build's resource map, so a goal of three times the live heap instead of
// two halves the cycles: a tenth of kubeflow/manifests' render CPU, for
// its largest worker's peak RSS going from about 120 to 155 MB (the memory
// // limit below still bounds it). Helm's renders keep Go's default goal,
// under the HeapPacer's limit: their workers' peak RSS is what the chart
// monorepos compare.
const youngGCPercent = 200

// Collect runs render with the collector settings its garbage calls for,
// and the earlier ones again after: with youngGCPercent (never lower than
// the goal GOGC set) when its garbage dies young, else paced by the
// memory limit (HeapPacer). It returns the most memory the worker held
// during it.
func Collect(pacer *HeapPacer, young bool, render func()) int64 {
	if young {
		old := debug.SetGCPercent(youngGCPercent)
		if old < 0 || old > youngGCPercent {
			debug.SetGCPercent(old)
		}
		defer debug.SetGCPercent(old)
	}
	pacer.Begin(!young, liveHeap())
	render()
	return pacer.End()
}

// LimitWorker sets the worker's stack limit, makes the garbage collector
// work hard before the budget is reached, and starts the watchdog that
// ends the process when it is exceeded anyway and feeds the pacer it
// returns (which runs without a budget too).
func LimitWorker(budget int64) *HeapPacer {
	debug.SetMaxStack(MaxStack)
	pacer := &HeapPacer{Ceiling: math.MaxInt64}
	if budget > 0 {
		pacer.Ceiling = budget * 3 / 4
		debug.SetMemoryLimit(pacer.Ceiling)
		LimitAddressSpace(budget)
	}
	go watchMemory(budget, pacer, 5*time.Millisecond)
	return pacer
}

// watchMemory exits the process once the memory the Go runtime holds from
// the system exceeds budget (none when budget is not positive), and feeds
// the pacer the live heap. A goroutine running Helm's engine or krusty
// cannot be stopped from outside, so the process is the unit that can.
func watchMemory(budget int64, pacer *HeapPacer, every time.Duration) {
	samples := []metrics.Sample{
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
		{Name: "/gc/heap/live:bytes"},
	}
	for range time.Tick(every) {
		metrics.Read(samples)
		held := int64(samples[0].Value.Uint64()) - int64(samples[1].Value.Uint64())
		pacer.Observe(samples[2].Value.Uint64(), held)
		if budget > 0 && held > budget {
			fmt.Fprintf(os.Stderr, "%s: %d MiB held, budget %d MiB\n", MemoryMarker, held>>20, budget>>20)
			os.Exit(exitMemory)
		}
	}
}

// Settle collects, between two sources, the garbage the last render
// left, when the heap goal it left is above settleAbove. The collector
// sets its next goal from the heap it found live at its last cycle, so
// without this a cycle that ran in the middle of a large render lets the
// next source grow the heap to twice that render's live set before
// anything is collected: a worker that served many sources then peaks
// above a process that renders only the largest of them, which is what a
// command-line tool pays (kubeflow/manifests' largest worker: 195 MB
// without, 178 MB with). Below settleAbove the next source can grow the
// heap by little before its first cycle, and a forced cycle (a full one,
// sweeping every span before it returns) and the few-MB goal it leaves,
// which has the next render run more cycles while its heap grows, cost
// more than they save: collecting after every source was a sixth of the CPU of
// the corpus's and kubeflow's runs and a tenth of bitnami's. (At 32 MiB
// kubeflow saves a tenth more, but bitnami's largest worker peaks a few
// MB higher, where helm template's own peak is within them.)
//
// A render during which no cycle ran and which left little garbage is not
// followed by one: the goal is still the one the last settled heap set,
// so the next source grows from where a cycle would leave it. Forcing one
// anyway costs a full mark of the worker's live heap per source: 2,000
// Argo CD Applications delivering one two-object folder took 41 s, two
// thirds of a worker's CPU in the collector, against 9.5 s without.
//
// A cycle during the render that found no more live than the worker keeps
// between sources (kyaml's OpenAPI schema, the read memo, the Helm
// engine's caches: a Flux repository's worker keeps 7-11 MB, a goal of
// 17-24 MB) already set the goal a forced one would: forcing it anyway
// cost home-ops-tscibilia's workers 57 ms of their 0.5 s of CPU, seven
// full cycles. Only a cycle that found more than settleGrown above what
// the last settled heap kept counts.
func (s *HeapSettler) Settle() {
	live := liveHeap()
	grown := gcCycles() != s.cycles && live > s.kept+settleGrown
	if HeapGoal() > settleAbove && (grown || heapGarbage() > settleAbove) {
		runtime.GC()
		s.kept = liveHeap()
	} else {
		s.kept = min(s.kept, live) // what the worker keeps never creeps up unforced
	}
	s.cycles = gcCycles()
}

// A HeapSettler remembers how many cycles the collector had run when the
// worker's heap was last settled, and what it kept live then.
type HeapSettler struct {
	cycles uint64
	kept   uint64
}

// settleGrown is how much more than the settled heap a render's cycle must
// have found live for settle to collect after it.
const settleGrown = 8 << 20

// settleAbove is the heap goal, and the garbage, above which settle collects.
const settleAbove = 16 << 20

// gcCycles is how many collections the process has completed.
func gcCycles() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// heapGarbage is what the heap holds beyond what the last cycle found live.
func heapGarbage() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if objs, live := s[0].Value.Uint64(), s[1].Value.Uint64(); objs > live {
		return objs - live
	}
	return 0
}

// ForcedCycles is how many collections the process has forced.
func ForcedCycles() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/forced:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// liveHeap is the heap the collector found live at its last cycle.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// HeapGoal is the heap size at which the collector's next cycle is due.
func HeapGoal() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
