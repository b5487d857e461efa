package render

import (
	"encoding/gob"
	"fmt"
	"io"
	"log"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"time"

	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/capreport/capreport/render/internal/proc"
)

// WorkerProfileEnv, set to "cpu:PREFIX" or "heap:PREFIX" in the parent's
// environment, makes every render worker it starts write that profile to
// PREFIX.PID when it ends (proc.StartProfile).
const WorkerProfileEnv = proc.ProfileEnv

// workerEnv marks a process started as a render worker.
const workerEnv = "CAPREPORT_RENDER_WORKER"

// Lines a worker writes to its standard error for the parent to read.
const (
	// memoryMarker says the watchdog stopped the worker.
	memoryMarker = "capreport render worker: memory budget exceeded"
)

// workerExitMemory is the status a worker stopped by its watchdog exits with.
const workerExitMemory = 70

// maxWorkerStack bounds a render's goroutine stack. Real templates nest a
// few hundred frames; a tpl that calls itself would otherwise grow the
// stack to the runtime's 1 GB default before failing. Helm's engine gives no
// hook to count tpl depth, so the stack limit is that depth limit: the
// worker dies with "stack overflow" and its parent reports the source.
const maxWorkerStack = 128 << 20

// IsWorker reports whether this process was started by Render as a render
// worker. A program that sets Options.Isolation.Command to itself calls
// it first thing in main (and a test binary in TestMain), then ServeWorker.
func IsWorker() bool { return os.Getenv(workerEnv) == "1" }

// ServeWorker serves render requests on standard input and output until
// its parent closes them, and returns the exit status. Everything the
// render libraries print goes to standard error, where the parent reads it
// as the current source's log.
func ServeWorker() int {
	stop := proc.StartProfile()
	defer stop()
	return serveWorker()
}

func serveWorker() int {
	in, out := os.Stdin, os.Stdout
	os.Stdout = os.Stderr // a library's stray Println must not corrupt the protocol
	log.SetFlags(0)
	log.SetOutput(os.Stderr)
	dec, enc := gob.NewDecoder(in), gob.NewEncoder(out)
	fmt.Fprintln(os.Stderr, proc.ReadyMarker)
	var init workerInit
	if err := dec.Decode(&init); err != nil {
		if err == io.EOF { // a pool's spare that no source needed
			return 0
		}
		fmt.Fprintf(os.Stderr, "capreport render worker: reading its setup: %v\n", err)
		return 2
	}
	pacer := limitWorker(init.MaxMemory)
	pacer.Off = init.Unpaced
	rd := workerRenderer(init)
	var settler heapSettler
	for {
		var req workerRequest
		if err := dec.Decode(&req); err != nil {
			if err == io.EOF {
				return 0
			}
			fmt.Fprintf(os.Stderr, "capreport render worker: reading a request: %v\n", err)
			return 2
		}
		if req.Setup != nil { // another pool's, whose memory limit is the first's
			rd, pacer.Off = workerRenderer(*req.Setup), req.Setup.Unpaced
		}
		goal, forced := heapGoal(), forcedCycles()
		rd.setFetchBudget(req.FetchBudget)
		o, held := renderCollecting(rd, pacer, req.Spec.spec())
		fmt.Fprintf(os.Stderr, "%s%d\n", proc.EndMarker, req.ID)
		resp := workerResponse{ID: req.ID, Objects: toWireObjects(o.objects), Result: o.result, Covered: o.covered, Inputs: o.inputs, Recorded: o.recorded,
			Fetched: req.FetchBudget - rd.fx.budget.Load(), HeapGoal: goal, Forced: forced, PeakHeld: held}
		if err := enc.Encode(&resp); err != nil {
			fmt.Fprintf(os.Stderr, "capreport render worker: writing a response: %v\n", err)
			return 2
		}
		settler.settle()
	}
}

// workerRenderer is the renderer a worker's setup describes.
func workerRenderer(init workerInit) *renderer {
	init.Opts.FS = filesys.MakeFsOnDisk() // Render isolates sources only on disk
	r := newRepo(init.Opts)
	r.Root = init.Root // evaluated by Render
	return &renderer{repo: r, opts: init.Opts, scope: init.Scope, fx: &fetchState{}}
}

// kustomizeGCPercent is the collector's goal while a worker builds a
// Kustomize source, against Go's 100 for the rest. krusty's garbage dies
// young (every transformer copies the nodes it rewrites, kyaml's reader
// copies each mapping at every level) while what stays live is the
// build's resource map, so a goal of three times the live heap instead of
// two halves the cycles: a tenth of kubeflow/manifests' render CPU, for
// its largest worker's peak RSS going from about 120 to 155 MB (the memory
// limit below still bounds it). Helm's renders keep Go's default goal,
// under the proc.HeapPacer's limit: their workers' peak RSS is what the chart
// monorepos compare.
const kustomizeGCPercent = 200

// renderCollecting renders one source with the collector settings its
// kind calls for, and the earlier ones again after: a Kustomize build with
// kustomizeGCPercent (never lower than the goal GOGC set), any other
// source paced by the memory limit (proc.HeapPacer). It returns the render and
// the most memory the worker held during it.
func renderCollecting(rd *renderer, pacer *proc.HeapPacer, spec SourceSpec) (sourceOut, int64) {
	kustomize := spec.Type == SourceKustomize
	if kustomize {
		old := debug.SetGCPercent(kustomizeGCPercent)
		if old < 0 || old > kustomizeGCPercent {
			debug.SetGCPercent(old)
		}
		defer debug.SetGCPercent(old)
	}
	pacer.Begin(!kustomize, liveHeap())
	o := rd.renderRecovered(spec)
	return o, pacer.End()
}

// limitWorker sets the worker's stack limit, makes the garbage collector
// work hard before the budget is reached, and starts the watchdog that
// ends the process when it is exceeded anyway and feeds the pacer it
// returns (which runs without a budget too).
func limitWorker(budget int64) *proc.HeapPacer {
	debug.SetMaxStack(maxWorkerStack)
	pacer := &proc.HeapPacer{Ceiling: math.MaxInt64}
	if budget > 0 {
		pacer.Ceiling = budget * 3 / 4
		debug.SetMemoryLimit(pacer.Ceiling)
		proc.LimitAddressSpace(budget)
	}
	go watchMemory(budget, pacer, 5*time.Millisecond)
	return pacer
}

// watchMemory exits the process once the memory the Go runtime holds from
// the system exceeds budget (none when budget is not positive), and feeds
// the pacer the live heap. A goroutine running Helm's engine or krusty
// cannot be stopped from outside, so the process is the unit that can.
func watchMemory(budget int64, pacer *proc.HeapPacer, every time.Duration) {
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
			fmt.Fprintf(os.Stderr, "%s: %d MiB held, budget %d MiB\n", memoryMarker, held>>20, budget>>20)
			os.Exit(workerExitMemory)
		}
	}
}

// settle collects, between two sources, the garbage the last render
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
func (s *heapSettler) settle() {
	if heapGoal() > settleAbove && (gcCycles() != s.cycles || heapGarbage() > settleAbove) {
		runtime.GC()
	}
	s.cycles = gcCycles()
}

// heapSettler remembers how many cycles the collector had run when the
// worker's heap was last settled.
type heapSettler struct{ cycles uint64 }

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

// forcedCycles is how many collections the process has forced.
func forcedCycles() uint64 {
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

// heapGoal is the heap size at which the collector's next cycle is due.
func heapGoal() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
