package render

import (
	"encoding/gob"
	"fmt"
	"io"
	"log"
	"os"

	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/capreport/capreport/render/internal/proc"
)

// WorkerProfileEnv, set to "cpu:PREFIX" or "heap:PREFIX" in the parent's
// environment, makes every render worker it starts write that profile to
// PREFIX.PID when it ends (proc.StartProfile).
const WorkerProfileEnv = proc.ProfileEnv

// workerEnv marks a process started as a render worker.
const workerEnv = "CAPREPORT_RENDER_WORKER"

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
	pacer := proc.LimitWorker(init.MaxMemory)
	pacer.Off = init.Unpaced
	rd := workerRenderer(init)
	var settler proc.HeapSettler
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
		goal, forced := proc.HeapGoal(), proc.ForcedCycles()
		rd.setFetchBudget(req.FetchBudget)
		o, held := renderCollecting(rd, pacer, req.Spec.spec())
		fmt.Fprintf(os.Stderr, "%s%d\n", proc.EndMarker, req.ID)
		resp := workerResponse{ID: req.ID, Objects: toWireObjects(o.objects), Result: o.result, Covered: o.covered, Inputs: o.inputs, Recorded: o.recorded,
			Fetched: req.FetchBudget - rd.fx.budget.Load(), HeapGoal: goal, Forced: forced, PeakHeld: held}
		if err := enc.Encode(&resp); err != nil {
			fmt.Fprintf(os.Stderr, "capreport render worker: writing a response: %v\n", err)
			return 2
		}
		settler.Settle()
	}
}

// workerRenderer is the renderer a worker's setup describes.
func workerRenderer(init workerInit) *renderer {
	init.Opts.FS = filesys.MakeFsOnDisk() // Render isolates sources only on disk
	r := newRepo(init.Opts)
	r.Root = init.Root // evaluated by Render
	return &renderer{repo: r, opts: init.Opts, scope: init.Scope, fx: &fetchState{}}
}

// renderCollecting renders one source with the collector settings its
// kind calls for (proc.Collect): a Kustomize build's garbage dies young.
// It returns the render and the most memory the worker held during it.
func renderCollecting(rd *renderer, pacer *proc.HeapPacer, spec SourceSpec) (sourceOut, int64) {
	var o sourceOut
	held := proc.Collect(pacer, spec.Type == SourceKustomize, func() { o = rd.renderRecovered(spec) })
	return o, held
}
