package worker

import (
	"encoding/gob"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/capreport/capreport/render/internal/proc"
)

// Env marks a process started as a worker.
const Env = "CAPREPORT_RENDER_WORKER"

// Is reports whether this process was started as a worker. A program
// whose pools start itself calls it first thing in main (and a test
// binary in TestMain), then Serve.
func Is() bool { return os.Getenv(Env) == "1" }

// A Handler serves the requests of one setup in a worker.
type Handler[Q, R any] interface {
	// Young reports whether the work q asks for makes garbage that dies
	// young (proc.Collect).
	Young(q Q) bool
	Serve(q Q) R
}

// Serve serves requests on standard input and output until the parent
// closes them, each with the Handler setUp makes of the worker's current
// setup, and returns the exit status. Everything the work prints goes to
// standard error, where the parent reads it as the current request's log.
func Serve[S, Q, R any](setUp func(S) Handler[Q, R]) int {
	stop := proc.StartProfile()
	defer stop()
	in, out := os.Stdin, os.Stdout
	os.Stdout = os.Stderr // a library's stray Println must not corrupt the protocol
	log.SetFlags(0)
	log.SetOutput(os.Stderr)
	dec, enc := gob.NewDecoder(in), gob.NewEncoder(out)
	fmt.Fprintln(os.Stderr, proc.ReadyMarker)
	var first setup[S]
	if err := dec.Decode(&first); err != nil {
		if err == io.EOF { // a pool's spare that no request needed
			return 0
		}
		fmt.Fprintf(os.Stderr, "capreport render worker: reading its setup: %v\n", err)
		return 2
	}
	pacer := proc.LimitWorker(first.Limits.MaxMemory)
	pacer.Off = first.Limits.Unpaced
	h := setUp(first.Setup)
	var settler proc.HeapSettler
	for {
		var req request[S, Q]
		if err := dec.Decode(&req); err != nil {
			if err == io.EOF {
				return 0
			}
			fmt.Fprintf(os.Stderr, "capreport render worker: reading a request: %v\n", err)
			return 2
		}
		if req.Setup != nil { // another pool's, whose memory limit is the first's
			h, pacer.Off = setUp(req.Setup.Setup), req.Setup.Limits.Unpaced
		}
		resp := response[R]{ID: req.ID, Stats: Stats{HeapGoal: proc.HeapGoal(), Forced: proc.ForcedCycles()}}
		resp.Stats.PeakHeld = proc.Collect(pacer, h.Young(req.Body), func() { resp.Body = h.Serve(req.Body) })
		fmt.Fprintf(os.Stderr, "%s%d\n", proc.EndMarker, req.ID)
		if err := enc.Encode(&resp); err != nil {
			fmt.Fprintf(os.Stderr, "capreport render worker: writing a response: %v\n", err)
			return 2
		}
		settler.Settle()
		if a, ok := h.(Idler[Q]); ok {
			a.Idle(req.Body)
		}
	}
}

// An Idler is a Handler told, once each response is written and the heap
// settled, that the worker is about to wait for the next request: what it
// starts then runs while the parent reads the response and decides.
type Idler[Q any] interface {
	Idle(q Q)
}
