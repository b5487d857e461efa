package worker

import (
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/capreport/capreport/render/internal/proc"
)

// A Process is one live worker process.
type Process[S, Q, R any] struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	enc    *gob.Encoder
	dec    *gob.Decoder
	log    *proc.Tap
	nextID uint64
	exited chan struct{} // closed once the process has been waited for
}

// spawn starts a worker process of command, with env added to this
// process's environment; it waits for its setup (begin). started runs
// once the worker says it is ready.
func spawn[S, Q, R any](command, env []string, started func()) (*Process[S, Q, R], error) {
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
	cmd.Env = append(append(os.Environ(), Env+"=1", "TMPDIR="+tmp), env...)
	proc.OwnGroup(cmd)
	stdin, stdout, stderr, err := pipes(cmd)
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		_ = os.RemoveAll(tmp)
		return nil, err
	}
	w := &Process[S, Q, R]{cmd: cmd, stdin: stdin, enc: gob.NewEncoder(stdin), dec: gob.NewDecoder(stdout), exited: make(chan struct{})}
	w.log = proc.NewTap(stderr, started)
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

// pipes are the worker's standard input, output and error.
func pipes(cmd *exec.Cmd) (io.WriteCloser, io.ReadCloser, io.ReadCloser, error) {
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, nil, err
	}
	stderr, err := cmd.StderrPipe()
	return stdin, stdout, stderr, err
}

// begin sends a spawned worker its setup; a worker that cannot take it is
// killed.
func (w *Process[S, Q, R]) begin(s setup[S]) error {
	if err := w.enc.Encode(&s); err != nil {
		w.Kill()
		return fmt.Errorf("starting a render worker: %w", err)
	}
	return nil
}

// stop closes the worker's input, which ends it, and kills it if it has
// not ended after 5 s.
func (w *Process[S, Q, R]) stop() {
	_ = w.stdin.Close()
	select {
	case <-w.exited:
	case <-time.After(5 * time.Second):
		w.Kill()
	}
}

// Kill kills the worker and everything it started (its process group):
// a git fetch that hangs on a server that never answers ends with it.
func (w *Process[S, Q, R]) Kill() {
	proc.KillGroup(w.cmd)
	<-w.exited
}

// PID is the worker's process ID.
func (w *Process[S, Q, R]) PID() int { return w.cmd.Process.Pid }

// Exited is closed once the worker has ended and been waited for.
func (w *Process[S, Q, R]) Exited() <-chan struct{} { return w.exited }

// ExitCode is the worker's exit status once Exited is closed.
func (w *Process[S, Q, R]) ExitCode() int { return w.cmd.ProcessState.ExitCode() }

// LastLines are the last lines the worker printed, once it has ended or
// wait has passed.
func (w *Process[S, Q, R]) LastLines(wait time.Duration) []string { return w.log.LastLines(wait) }

// A Log is what a worker printed while it served one request: the first
// lines, and how many more it printed.
type Log struct {
	Lines   []string
	Dropped int
}

// ErrDied is a request that ended with its worker.
var ErrDied = errors.New("render worker died")

// do sends one request and waits for its response and its log, or for the
// request's time to run out (expired: context.DeadlineExceeded) or the
// context; on any error the caller must kill the worker.
func (w *Process[S, Q, R]) do(ctx context.Context, body Q, s *setup[S], expired <-chan struct{}) (R, Stats, Log, error) {
	w.nextID++
	req := request[S, Q]{ID: w.nextID, Body: body, Setup: s}
	w.log.Begin(req.ID)
	done := make(chan error, 1)
	var resp response[R]
	go func() {
		if err := w.enc.Encode(&req); err != nil {
			done <- fmt.Errorf("%w: %v", ErrDied, err)
			return
		}
		if err := w.dec.Decode(&resp); err != nil {
			done <- fmt.Errorf("%w: %v", ErrDied, err)
			return
		}
		done <- nil
	}()
	select {
	case err := <-done:
		if err != nil {
			return resp.Body, resp.Stats, Log{}, err
		}
		lines, dropped, err := w.log.End(req.ID, 5*time.Second)
		return resp.Body, resp.Stats, Log{lines, dropped}, err
	case <-expired: // the response, if any, is the reader's to write
		var zero R
		return zero, Stats{}, Log{}, context.DeadlineExceeded
	case <-ctx.Done():
		var zero R
		return zero, Stats{}, Log{}, ctx.Err()
	}
}
