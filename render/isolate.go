package render

import (
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/capreport/capreport/check"
)

// Isolation runs every source's render in a worker process: a process is
// the only unit that can be stopped when a render outlives its time or
// memory (Helm's engine and krusty take no context), and that survives a
// fatal runtime error (a template recursing until the stack overflows).
// Each worker renders one source at a time, so what it prints belongs to
// that source.
type Isolation struct {
	// Command starts a worker: a program that calls IsWorker and
	// ServeWorker first thing (capreport itself). Empty: render in-process,
	// bounded only by the timeout, which then cannot stop the work. A
	// worker reads the repository from the disk, so with an Options.FS
	// other than filesys.MakeFsOnDisk() the render is in-process too.
	Command []string
	// MaxMemory is the memory one worker may hold (0: DefaultSourceMemory).
	MaxMemory int64
}

// DefaultSourceMemory bounds one render's memory in a worker. Real charts
// and overlays render in tens of MiB; kubeflow's largest in about 200.
const DefaultSourceMemory = 512 << 20

// workerPool keeps up to Parallelism live workers; a worker that failed a
// request is killed and replaced by a fresh one on the next request.
//
// The pool starts one worker process when it is made, a spare that waits
// for its setup until the first request takes it: most of a worker's start
// is its process's package initialization (Helm's and client-go's schemes,
// a values-schema compiler: about 30 ms), which the spare then pays while
// the run discovers its sources and checks the render cache, instead of
// after a source is found to need a render.
type workerPool struct {
	init  workerInit
	cmd   []string
	mu    sync.Mutex
	idle  []*worker
	spare *worker // nil once taken, or when it could not start
}

func newWorkerPool(rd *renderer) *workerPool {
	iso := rd.opts.Isolation
	if iso.MaxMemory <= 0 {
		iso.MaxMemory = DefaultSourceMemory
	}
	opts := rd.opts
	opts.FS = nil                             // the disk: a worker opens it again (gob cannot carry a file system)
	opts.Checkout, opts.CheckFirst = nil, nil // the render cache's, which stays in this process
	p := &workerPool{cmd: iso.Command,
		init: workerInit{Root: rd.repo.Root, Scope: rd.scope, Opts: opts, MaxMemory: iso.MaxMemory}}
	if p.spare = takePrestarted(iso.Command); p.spare == nil {
		p.spare, _ = spawnWorker(iso.Command) // if it cannot start, get says why
	}
	return p
}

// get returns an idle worker, else the spare, else starts one.
func (p *workerPool) get() (*worker, error) {
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		w := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return w, nil
	}
	spare := p.spare
	p.spare = nil
	p.mu.Unlock()
	if spare != nil && spare.begin(p.init) == nil {
		return spare, nil
	}
	return startWorker(p.cmd, p.init)
}

func (p *workerPool) put(w *worker) {
	p.mu.Lock()
	p.idle = append(p.idle, w)
	p.mu.Unlock()
}

// close ends the idle workers: each exits when its input closes.
func (p *workerPool) close() {
	p.mu.Lock()
	idle := p.idle
	if p.spare != nil { // it exits at the end of its input, set up or not
		idle = append(idle, p.spare)
		p.spare = nil
	}
	p.idle = nil
	p.mu.Unlock()
	for _, w := range idle {
		w.stop()
	}
}

// worker is one live worker process.
type worker struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	enc    *gob.Encoder
	dec    *gob.Decoder
	log    *stderrTap
	nextID uint64
	exited chan struct{} // closed once the process has been waited for
}

func startWorker(command []string, init workerInit) (*worker, error) {
	w, err := spawnWorker(command)
	if err != nil {
		return nil, err
	}
	if err := w.begin(init); err != nil {
		return nil, err
	}
	return w, nil
}

// spawnWorker starts a worker process, which waits for its setup (begin).
func spawnWorker(command []string) (*worker, error) {
	if len(command) == 0 {
		return nil, errors.New("no worker command")
	}
	cmd := exec.Command(command[0], command[1:]...)
	// git (kustomize's loader of remote bases, --fetch) may speak http(s)
	// only, even for submodules, and never waits for a password.
	cmd.Env = append(os.Environ(), workerEnv+"=1", "GIT_ALLOW_PROTOCOL=http:https", "GIT_TERMINAL_PROMPT=0")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	w := &worker{cmd: cmd, stdin: stdin, enc: gob.NewEncoder(stdin), dec: gob.NewDecoder(stdout),
		log: newStderrTap(stderr), exited: make(chan struct{})}
	go func() {
		<-w.log.eof // Wait closes the pipes: read them to the end first
		_ = cmd.Wait()
		close(w.exited)
	}()
	return w, nil
}

// begin sends a spawned worker its setup; a worker that cannot take it is
// killed.
func (w *worker) begin(init workerInit) error {
	if err := w.enc.Encode(&init); err != nil {
		w.kill()
		return fmt.Errorf("starting a render worker: %w", err)
	}
	return nil
}

func (w *worker) stop() {
	_ = w.stdin.Close()
	select {
	case <-w.exited:
	case <-time.After(5 * time.Second):
		w.kill()
	}
}

func (w *worker) kill() {
	_ = w.cmd.Process.Kill()
	<-w.exited
}

// workerLog is what a worker printed while it served one request: the
// first lines, and how many more it printed.
type workerLog struct {
	lines   []string
	dropped int
}

// errWorkerDied is a request that ended with its worker.
var errWorkerDied = errors.New("render worker died")

// do sends one request and waits for its response and its log, or for the
// timeout or the context; on any error the caller must kill the worker.
func (w *worker) do(ctx context.Context, spec SourceSpec, timeout time.Duration, budget *atomic.Int64) (workerResponse, workerLog, error) {
	w.nextID++
	req := workerRequest{ID: w.nextID, Spec: toWire(spec), FetchBudget: budget.Load()}
	w.log.begin(req.ID)
	done := make(chan error, 1)
	var resp workerResponse
	go func() {
		if err := w.enc.Encode(&req); err != nil {
			done <- fmt.Errorf("%w: %v", errWorkerDied, err)
			return
		}
		if err := w.dec.Decode(&resp); err != nil {
			done <- fmt.Errorf("%w: %v", errWorkerDied, err)
			return
		}
		done <- nil
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case err := <-done:
		if err != nil {
			return resp, workerLog{}, err
		}
		lines, dropped, err := w.log.end(req.ID, 5*time.Second)
		return resp, workerLog{lines, dropped}, err
	case <-timer.C:
		return resp, workerLog{}, context.DeadlineExceeded
	case <-ctx.Done():
		return resp, workerLog{}, ctx.Err()
	}
}

// renderIsolated renders spec in a worker. ok is false when no worker
// could take it (none could start, or the spec holds a value gob cannot
// carry): the caller renders in-process instead.
func (p *workerPool) renderIsolated(ctx context.Context, rd *renderer, spec SourceSpec) (out sourceOut, ok bool) {
	if gob.NewEncoder(io.Discard).Encode(toWire(spec)) != nil {
		return sourceOut{}, false
	}
	w, err := p.get()
	if err != nil {
		return sourceOut{}, false
	}
	resp, printed, err := w.do(ctx, spec, rd.opts.SourceTimeout, &rd.fx.budget)
	rd.fx.budget.Add(-resp.Fetched)
	if err == nil {
		p.put(w)
		out = sourceOut{objects: fromWireObjects(resp.Objects), result: resp.Result, covered: resp.Covered, inputs: resp.Inputs, recorded: resp.Recorded}
		out.result.Findings = append(out.result.Findings, rd.logFindings(spec, printed)...)
		return out, true
	}
	w.kill()
	return rd.workerFailure(spec, err, w.log.lastLines(2*time.Second)), true
}

// workerFailure turns a request that ended with its worker into the
// finding that says why: time, memory, a fatal error, or the context.
func (rd *renderer) workerFailure(spec SourceSpec, err error, tail []string) sourceOut {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return rd.failedOut(spec, check.RenderTimeout, fmt.Errorf("render did not finish within %s and was stopped", rd.opts.SourceTimeout))
	case errors.Is(err, context.Canceled):
		return rd.failedOut(spec, check.RenderCancelled, err)
	}
	joined := strings.Join(tail, "\n")
	switch {
	case strings.Contains(joined, memoryMarker) || strings.Contains(joined, "out of memory"):
		return rd.failedOut(spec, check.RenderMemory, fmt.Errorf("render held more than %d MiB and was stopped (a template that recurses or builds huge strings?)", rd.opts.Isolation.memory()>>20))
	case strings.Contains(joined, "stack overflow") || strings.Contains(joined, "stack exceeds"):
		return rd.failedOut(spec, check.RenderCrashed, fmt.Errorf("render recursed past the %d MiB stack limit and was stopped (a tpl or include that calls itself?)", maxWorkerStack>>20))
	}
	return rd.failedOut(spec, check.RenderCrashed, fmt.Errorf("%v; its last words: %s", err, fatalLine(tail)))
}

// fatalLine picks the line of a dying Go process that says why.
func fatalLine(tail []string) string {
	for _, l := range tail {
		if strings.HasPrefix(l, "fatal error:") || strings.HasPrefix(l, "panic:") {
			return l
		}
	}
	if len(tail) > 0 {
		return tail[len(tail)-1]
	}
	return "(nothing)"
}

func (iso Isolation) memory() int64 {
	if iso.MaxMemory > 0 {
		return iso.MaxMemory
	}
	return DefaultSourceMemory
}

// maxLogFindings bounds the render-log findings of one source.
const maxLogFindings = 10

// unorderedLists are the lines a renderer prints with a list in Go's map
// order: krusty's ResAccumulator.ResolveVars joins its unused vars from a
// map, so the same build printed them in another order on every run, and a
// report (and the pull-request comment that quotes it) changed with it.
var unorderedLists = []string{"well-defined vars that were never replaced: "}

// steadyLine is a printed line with such a list sorted.
func steadyLine(l string) string {
	for _, prefix := range unorderedLists {
		if list, ok := strings.CutPrefix(l, prefix); ok {
			names := strings.Split(list, ",")
			slices.Sort(names)
			return prefix + strings.Join(names, ",")
		}
	}
	return l
}

// logFindings turns what the render libraries printed while rendering spec
// (kustomize's deprecation notices, Helm's coalesce warnings) into warnings
// on the source, one per distinct line.
func (rd *renderer) logFindings(spec SourceSpec, printed workerLog) []check.Finding {
	var out []check.Finding
	seen := map[string]bool{}
	more := printed.dropped
	for _, l := range printed.lines {
		l = steadyLine(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "#")))
		if l == "" || seen[l] {
			continue
		}
		seen[l] = true
		if len(out) == maxLogFindings {
			more++
			continue
		}
		out = append(out, check.Finding{Check: check.RenderLog, Severity: check.SeverityWarning, Source: spec.ID(),
			Message: rd.tidy(fmt.Sprintf("%s %s: the renderer printed: %s", spec.Type, spec.ID(), l))})
	}
	if more > 0 && len(out) > 0 {
		out[len(out)-1].Message += fmt.Sprintf(" (and %d more lines)", more)
	}
	return out
}
