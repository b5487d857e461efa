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
	"sync/atomic"
	"time"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render/internal/proc"
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

// worker is one live worker process.
type worker struct {
	cmd     *exec.Cmd
	key     string      // which pools may take it (workerKey)
	owner   *workerPool // the pool whose setup it has; nil before its first
	setup   *workerInit // to send with its next request: another pool's
	spawned time.Time

	stdin  io.WriteCloser
	enc    *gob.Encoder
	dec    *gob.Decoder
	log    *proc.Tap
	nextID uint64
	exited chan struct{} // closed once the process has been waited for
}

// spawnWorker starts a worker process, which waits for its setup (begin).
func spawnWorker(command []string, key string) (*worker, error) {
	if len(command) == 0 {
		return nil, errors.New("no worker command")
	}
	cmd := exec.Command(command[0], command[1:]...)
	// A temporary directory of its own, removed when it ends: krusty makes
	// its clones of remote bases there (os.MkdirTemp("", "kustomize-")),
	// and a worker killed mid-clone would leave them behind.
	tmp, err := os.MkdirTemp("", "capreport-worker-")
	if err != nil {
		return nil, err
	}
	// git (kustomize's loader of remote bases, --fetch) may speak http(s)
	// only, even for submodules, never waits for a password, and gives up
	// on a server that sends under 1 kB/s for 30 s.
	cmd.Env = append(os.Environ(), workerEnv+"=1", "GIT_ALLOW_PROTOCOL=http:https", "GIT_TERMINAL_PROMPT=0",
		"GIT_HTTP_LOW_SPEED_LIMIT=1000", "GIT_HTTP_LOW_SPEED_TIME=30", "TMPDIR="+tmp)
	proc.OwnGroup(cmd)
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
		_ = os.RemoveAll(tmp)
		return nil, err
	}
	w := &worker{cmd: cmd, key: key, spawned: time.Now(), stdin: stdin, enc: gob.NewEncoder(stdin),
		dec: gob.NewDecoder(stdout), exited: make(chan struct{})}
	w.log = proc.NewTap(stderr, func() { workerStarted(w) })
	go func() {
		<-w.log.Closed() // Wait closes the pipes: read them to the end first
		_ = cmd.Wait()
		// Whatever it started and left running (a git that outlived
		// it holds its stderr, so eof waited for it), and its files.
		proc.KillGroup(cmd)
		_ = os.RemoveAll(tmp)
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

// kill kills the worker and everything it started (its process group):
// a git fetch that hangs on a server that never answers ends with it.
func (w *worker) kill() {
	proc.KillGroup(w.cmd)
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
// source's time to run out (expired) or the context; on any error the
// caller must kill the worker.
func (w *worker) do(ctx context.Context, spec SourceSpec, expired <-chan struct{}, budget *atomic.Int64) (workerResponse, workerLog, error) {
	w.nextID++
	req := workerRequest{ID: w.nextID, Spec: toWire(spec), FetchBudget: budget.Load(), Setup: w.setup}
	w.setup = nil
	w.log.Begin(req.ID)
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
	select {
	case err := <-done:
		if err != nil {
			return resp, workerLog{}, err
		}
		lines, dropped, err := w.log.End(req.ID, 5*time.Second)
		return resp, workerLog{lines, dropped}, err
	case <-expired:
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
	w, err := p.get(ctx)
	if err != nil {
		if ctx.Err() != nil { // it ended while the pool waited for a worker
			return rd.failedOut(spec, check.RenderCancelled, ctx.Err()), true
		}
		return sourceOut{}, false
	}
	clock := rd.slow.Begin(rd.opts.SourceTimeout)
	resp, printed, err := w.do(ctx, spec, clock.Expired(), &rd.fx.budget)
	granted := clock.End()
	rd.fx.budget.Add(-resp.Fetched)
	if err == nil {
		p.put(w)
		out = sourceOut{objects: fromWireObjects(resp.Objects), result: resp.Result, covered: resp.Covered, inputs: resp.Inputs, recorded: resp.Recorded}
		out.result.Findings = append(out.result.Findings, rd.logFindings(spec, printed)...)
		return out, true
	}
	w.kill()
	p.drop()
	return rd.workerFailure(spec, err, granted, w.log.LastLines(2*time.Second)), true
}

// workerFailure turns a request that ended with its worker into the
// finding that says why: time, memory, a fatal error, or the context.
func (rd *renderer) workerFailure(spec SourceSpec, err error, granted time.Duration, tail []string) sourceOut {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return rd.failedOut(spec, check.RenderTimeout, rd.slow.TimeoutError(granted, " and was stopped"))
	case errors.Is(err, context.Canceled):
		return rd.failedOut(spec, check.RenderCancelled, err)
	}
	joined := strings.Join(tail, "\n")
	switch {
	case strings.Contains(joined, proc.MemoryMarker) || strings.Contains(joined, "out of memory"):
		return rd.failedOut(spec, check.RenderMemory, fmt.Errorf("render held more than %d MiB and was stopped (a template that recurses or builds huge strings?)", rd.opts.Isolation.memory()>>20))
	case strings.Contains(joined, "stack overflow") || strings.Contains(joined, "stack exceeds"):
		return rd.failedOut(spec, check.RenderCrashed, fmt.Errorf("render recursed past the %d MiB stack limit and was stopped (a tpl or include that calls itself?)", proc.MaxStack>>20))
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
