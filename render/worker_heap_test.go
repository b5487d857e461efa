package render

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/capreport/capreport/internal/testutil"
	"github.com/capreport/capreport/render/worker"
)

// A worker that rendered a large chart starts the next source from the
// heap goal of a fresh process, not from twice the large render's live
// set (which a collection in the middle of that render set); after a
// small render it forces no collection.
func TestWorkerSettlesBetweenSources(t *testing.T) {
	root := t.TempDir()
	big := chartFiles("big", "", "{{- $big := repeat 64000000 \"x\" }}{{- $more := repeat 4000000 \"y\" }}"+
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  head: {{ $big | trunc 3 }}{{ $more | trunc 3 }}\n")
	testutil.WriteTree(t, root, big)
	pool := newWorkerPool(isolatedRenderer(t, root))
	defer pool.Close()
	w, err := pool.Get(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Put(w)
	var forced []uint64
	for _, spec := range []SourceSpec{{Path: "big", Type: SourceHelm}, {Path: "small", Type: SourcePlain}, {Path: "small", Type: SourcePlain}} {
		resp, stats, err := renderIn(w, spec)
		if err != nil || resp.Result.Status != StatusRendered {
			t.Fatalf("%s: %v %+v", spec.Path, err, resp.Result)
		}
		if spec.Path == "small" && stats.HeapGoal > 48<<20 {
			t.Errorf("after a render with 64 MB live the next source starts with a heap goal of %d MB, want a fresh process's few MB", stats.HeapGoal>>20)
		}
		forced = append(forced, stats.Forced)
	}
	if forced[1] != forced[0]+1 || forced[2] != forced[1] {
		t.Errorf("forced collections before each request: %v; want one after the large render and none after the small one", forced)
	}
}

// A pool starts a spare worker when it is made, and its first request
// takes it; a spare that no source needed exits cleanly, saying nothing.
func TestWorkerPoolSpare(t *testing.T) {
	rd := isolatedRenderer(t, t.TempDir())
	pool := newWorkerPool(rd)
	idle := workers.Idle(pool.Key())
	if len(idle) != 1 {
		t.Fatalf("the pool started %d spare workers, want 1", len(idle))
	}
	spare := idle[0]
	w, err := pool.Get(context.Background())
	if err != nil || w != spare {
		t.Fatalf("the first request got %p (%v), want the spare %p", w, err, spare)
	}
	if resp, _, err := renderIn(w, SourceSpec{Path: "small", Type: SourcePlain}); err != nil || resp.Result.Status != StatusRendered {
		t.Fatalf("the spare's render: %v %+v", err, resp.Result)
	}
	pool.Put(w)
	pool.Close()

	unused := newWorkerPool(rd)
	spare = workers.Idle(unused.Key())[0]
	unused.Close()
	<-spare.Exited()
	if code := spare.ExitCode(); code != 0 {
		t.Errorf("an unused spare exited with %d", code)
	}
	if lines := spare.LastLines(time.Second); len(lines) != 0 {
		t.Errorf("an unused spare printed %q", lines)
	}
}

// isolatedRenderer renders the repository at root, with a small/hpa.yaml
// added, in worker processes.
func isolatedRenderer(t *testing.T, root string) *renderer {
	t.Helper()
	testutil.WriteTree(t, root, map[string]string{"small/hpa.yaml": goodHPA})
	r, err := newRepo(DefaultOptions()).At(root)
	if err != nil {
		t.Fatal(err)
	}
	return &renderer{repo: r, opts: isolated(DefaultOptions()).withDefaults(), fx: &fetchState{}}
}

// A worker rendering a chart that builds large strings, as bitnami's
// envoy-gateway does (its templates stringify the root context, whose
// .Files hold megabytes of crds/), holds less memory from the system with
// its proc.HeapPacer than without: the pages the collector frees go back before
// fresh ones are taken.
func TestWorkerPacesLargeStrings(t *testing.T) {
	root := t.TempDir()
	files := chartFiles("strings", "", "{{- range until 6 }}{{- $s := printf \"%v\" $ }}{{- end }}"+
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: strings\n")
	files["strings/files/bytes.txt"] = strings.Repeat("0123456789abcdef", 160<<10) // 2.5 MiB, 9 MB as %v prints it
	testutil.WriteTree(t, root, files)
	held := map[bool]int64{}
	for _, unpaced := range []bool{true, false} {
		pool := newWorkerPool(isolatedRenderer(t, root))
		pool.SetUnpaced(unpaced)
		w, err := pool.Get(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		resp, stats, err := renderIn(w, SourceSpec{Path: "strings", Type: SourceHelm})
		pool.Put(w)
		pool.Close()
		if err != nil || resp.Result.Status != StatusRendered {
			t.Fatalf("unpaced %v: %v %+v", unpaced, err, resp.Result)
		}
		held[unpaced] = stats.PeakHeld
	}
	t.Logf("peak memory held: %d MiB unpaced, %d MiB paced", held[true]>>20, held[false]>>20)
	if held[false] > held[true]-8<<20 {
		t.Errorf("the paced worker held %d MiB at most, the unpaced one %d MiB; want at least 8 MiB less", held[false]>>20, held[true]>>20)
	}
}

// renderIn renders spec in w, with no deadline and nothing to fetch.
func renderIn(w *worker.Worker[workerSetup, workerRequest, workerResponse], spec SourceSpec) (workerResponse, worker.Stats, error) {
	resp, stats, _, err := w.Do(context.Background(), workerRequest{Spec: toWire(spec)}, nil)
	return resp, stats, err
}
