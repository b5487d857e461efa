package render

import (
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/capreport/capreport/render/internal/proc"
	"github.com/capreport/capreport/render/kustomize"
	"github.com/capreport/capreport/render/worker"
)

// WorkerProfileEnv, set to "cpu:PREFIX" or "heap:PREFIX" in the parent's
// environment, makes every render worker it starts write that profile to
// PREFIX.PID when it ends (proc.StartProfile).
const WorkerProfileEnv = proc.ProfileEnv

// IsWorker reports whether this process was started by Render as a render
// worker. A program that sets Options.Isolation.Command to itself calls
// it first thing in main (and a test binary in TestMain), then ServeWorker.
func IsWorker() bool { return worker.Is() }

// ServeWorker serves render requests on standard input and output until
// its parent closes them, and returns the exit status. Everything the
// render libraries print goes to standard error, where the parent reads it
// as the current source's log.
func ServeWorker() int { return worker.Serve(newWorkerHandler) }

// workerHandler renders a worker's requests with the renderer its setup
// describes.
type workerHandler struct{ rd *renderer }

func newWorkerHandler(setup workerSetup) worker.Handler[workerRequest, workerResponse] {
	setup.Opts.FS = filesys.MakeFsOnDisk() // Render isolates sources only on disk
	r := newRepo(setup.Opts)
	r.Root = setup.Root // evaluated by Render
	return workerHandler{&renderer{repo: r, opts: setup.Opts, scope: setup.Scope, fx: &fetchState{}, reads: kustomize.NewReadMemo()}}
}

// Young reports that a Kustomize build's garbage dies young: krusty's
// transformers copy the nodes they rewrite, kyaml's reader copies each
// mapping at every level, while what stays live is the build's resource
// map (proc.Collect).
func (h workerHandler) Young(req workerRequest) bool { return req.Spec.Type == SourceKustomize }

// Serve renders one source.
// Idle parses kustomize's schema, once, after a render that asks for it
// (workerRequest.Warm).
func (h workerHandler) Idle(req workerRequest) {
	if req.Warm {
		go kustomize.WarmSchema()
	}
}

func (h workerHandler) Serve(req workerRequest) workerResponse {
	rd := h.rd
	rd.setFetchBudget(req.FetchBudget)
	o := rd.renderRecovered(req.Spec.spec())
	return workerResponse{Objects: toWireObjects(o.Objects), Result: o.Result, Covered: o.Covered, Inputs: o.Inputs, Recorded: o.Recorded,
		Fetched: req.FetchBudget - rd.fx.budget.Load()}
}
