package render

import (
	"github.com/capreport/capreport/render/worker"
)

// workers are the process's render workers, shared by the pools open at
// once (a diff's head and base). git (kustomize's loader of remote bases,
// --fetch) may speak http(s) only, even for submodules, never waits for a
// password, and gives up on a server that sends under 1 kB/s for 30 s.
var workers = worker.NewSet[workerSetup, workerRequest, workerResponse](
	"GIT_ALLOW_PROTOCOL=http:https", "GIT_TERMINAL_PROMPT=0",
	"GIT_HTTP_LOW_SPEED_LIMIT=1000", "GIT_HTTP_LOW_SPEED_TIME=30")

// workerKey is what pools share workers by (worker.Key).
func workerKey(iso Isolation) string { return worker.Key(iso.Command, iso.memory()) }

// newWorkerPool is rd's pool: each worker renders from rd's root and
// scope with rd's options.
func newWorkerPool(rd *renderer) *workerPool {
	opts := rd.opts
	opts.FS = nil                             // the disk: a worker opens it again (gob cannot carry a file system)
	opts.Checkout, opts.CheckFirst = nil, nil // the render cache's, which stays in this process
	setup := workerSetup{Root: rd.repo.Root, Scope: rd.scope, Opts: opts}
	return workers.NewPool(rd.opts.Isolation.Command, setup, worker.Limits{MaxMemory: rd.opts.Isolation.memory()})
}

// Prestart starts n worker processes of iso before any pool is made, for
// the pools made next to take as their spares, and keeps the process's
// workers of iso alive until release (worker.Set.Prestart): a diff's head
// and base, made at different moments, then share them, and the first
// worker's start overlaps the resolving of the base's revision. Without a
// worker command it does nothing.
func Prestart(iso Isolation, n int) (release func()) {
	if len(iso.Command) == 0 {
		return func() {}
	}
	return workers.Prestart(iso.Command, iso.memory(), n)
}
