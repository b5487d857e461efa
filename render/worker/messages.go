// Package worker runs work in processes of its own: a process is the only
// unit that can be stopped when the work outlives its time or memory (Helm's
// engine and krusty take no context), and that survives a fatal runtime
// error (a template recursing until the stack overflows). It knows nothing
// of what the work is: the parent sends a setup S and requests Q, a worker
// answers each with a response R, all in gob, and the worker's Handler is
// the only code that looks inside them.
package worker

// Limits bound a worker's memory. MaxMemory is set by a worker's first
// setup, for the process's life; Unpaced turns its proc.HeapPacer off (the
// tests compare).
type Limits struct {
	MaxMemory int64
	Unpaced   bool
}

// setup is the first message a worker reads, and what a request carries
// when another pool takes a worker over.
type setup[S any] struct {
	Setup  S
	Limits Limits
}

// request asks for one piece of work. Setup, when set, replaces the
// worker's setup before it: a worker another pool set up serves this one
// (a diff's head and base).
type request[S, Q any] struct {
	ID    uint64
	Body  Q
	Setup *setup[S]
}

// response is one request's answer, with what the worker's memory was
// doing.
type response[R any] struct {
	ID    uint64
	Body  R
	Stats Stats
}

// Stats are a worker's heap when a request arrived, after the previous
// request's settle (HeapGoal, and the collections it had forced by then),
// and the most memory it held from the system while it served the
// request, sampled: for tests and profiles.
type Stats struct {
	HeapGoal, Forced uint64
	PeakHeld         int64
}
