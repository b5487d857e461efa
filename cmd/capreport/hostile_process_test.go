//go:build linux

package main

import (
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/capreport/capreport/internal/testutil"
)

// TestNothingOutlivesTheRun: with --fetch, a kustomize remote base on a
// git server that accepts and never answers. The render times out; when
// capreport exits, no git it started still runs and no clone or worker
// directory is left in its temporary directory (issue 31: git fetch kept
// running after capreport exited, and a kustomize-* clone stayed behind).
func TestNothingOutlivesTheRun(t *testing.T) {
	testutil.SkipIfShort(t)
	bin := buildCapreport(t)
	// A git server that never answers: kustomize first asks for the entry
	// as a file (404 here), then clones it with git, whose first request
	// (info/refs) hangs.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hang := make(chan struct{})
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "info/refs") {
			<-hang
			return
		}
		http.NotFound(w, r)
	})}
	go func() { _ = srv.Serve(ln) }()
	defer func() { close(hang); srv.Close() }()
	url := "http://" + ln.Addr().String() + "/silent/base.git"
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "o", "kustomization.yaml"), "resources:\n  - "+url+"//deploy?ref=main\n")
	tmp := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "list", root, "--fetch", "--render-timeout", "5s")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	// While it runs, git must be seen fetching: else the case tests nothing.
	seen := make(chan bool, 1)
	done := make(chan struct{})
	go func() {
		saw := false
		for !saw {
			select {
			case <-done:
				seen <- false
				return
			case <-time.After(100 * time.Millisecond):
				saw = len(processesNaming(ln.Addr().String())) > 0
			}
		}
		seen <- true
	}()
	out, _ := cmd.CombinedOutput()
	close(done)
	if !<-seen {
		t.Errorf("no git was seen fetching from the silent server:\n%s", out)
	}
	if ctx.Err() != nil {
		t.Fatalf("capreport did not end: %s", out)
	}
	if !strings.Contains(string(out), "o") {
		t.Fatalf("no report: %s", out)
	}
	time.Sleep(500 * time.Millisecond) // a killed group is reaped by init
	if left := processesNaming(ln.Addr().String()); len(left) > 0 {
		t.Errorf("still running after capreport exited: %q", left)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) > 0 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("left in the temporary directory: %q", names)
	}
}

// processesNaming lists the command lines of this machine's processes
// that hold s.
func processesNaming(s string) []string {
	var out []string
	dirs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range dirs {
		data, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(data), s) {
			out = append(out, strings.ReplaceAll(string(data), "\x00", " "))
		}
	}
	return out
}
