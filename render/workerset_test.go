package render

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/internal/testutil"
)

// otherRoot is a second repository whose small/hpa.yaml names another
// HorizontalPodAutoscaler than isolatedRenderer's.
func otherRoot(t *testing.T) *renderer {
	t.Helper()
	rd := isolatedRenderer(t, t.TempDir())
	other := strings.Replace(goodHPA, "{name: web,", "{name: other,", 1)
	testutil.WriteTree(t, rd.repo.Root, map[string]string{"small/hpa.yaml": other})
	return rd
}

// renderSmall renders small/hpa.yaml through pool and returns the name of
// the object it holds and the process ID of the worker that rendered it
// (the idle worker put back last).
func renderSmall(t *testing.T, pool *workerPool, rd *renderer) (string, int) {
	t.Helper()
	out, ok := renderIsolated(context.Background(), pool, rd, SourceSpec{Path: "small", Type: SourcePlain})
	if !ok || out.Result.Status != StatusRendered || len(out.Objects) != 1 {
		t.Fatalf("rendered %+v (ok %v), want one object", out.Result, ok)
	}
	idle := workers.Idle(pool.Key())
	return out.Objects[0].Name, idle[len(idle)-1].PID()
}

// A pool made while another is open starts no spare of its own: it takes
// the other's idle worker, which renders from the taking pool's root, and
// the first pool then takes it back, set up with its own again. The
// workers end when the last pool closes, not before.
func TestPoolsShareWorkers(t *testing.T) {
	head := isolatedRenderer(t, t.TempDir())
	base := otherRoot(t)
	headPool := newWorkerPool(head)
	basePool := newWorkerPool(base)
	if n := len(workers.Idle(headPool.Key())); n != 1 {
		t.Fatalf("two pools started %d workers, want one spare", n)
	}
	name1, pid1 := renderSmall(t, headPool, head)
	name2, pid2 := renderSmall(t, basePool, base)
	name3, pid3 := renderSmall(t, headPool, head)
	if name1 != "web" || name2 != "other" || name3 != "web" {
		t.Errorf("the shared worker rendered %s, %s, %s; want each pool's own root: web, other, web", name1, name2, name3)
	}
	if pid2 != pid1 || pid3 != pid1 {
		t.Errorf("the renders ran in processes %d, %d, %d; want one", pid1, pid2, pid3)
	}
	start, measured := workers.StartTime(headPool.Key())
	if !measured || start <= 0 || start > time.Minute {
		t.Errorf("a worker's start measured as %s (measured: %v)", start, measured)
	}
	w := workers.Idle(headPool.Key())[0]
	headPool.Close()
	select {
	case <-w.Exited():
		t.Fatal("the worker ended while a pool was still open")
	case <-time.After(100 * time.Millisecond):
	}
	basePool.Close()
	select {
	case <-w.Exited():
	case <-time.After(10 * time.Second):
		t.Fatal("the worker outlived the last pool")
	}
}

// A pool with no worker while another pool's is busy waits for that
// worker as long as a worker has taken to start, and no longer: a render
// that ends within it hands its worker over (no process started), one that
// outlasts it leaves the waiting pool to start its own, which renders long
// before the busy one's render ends.
func TestPoolWaitsAStartForABusyWorker(t *testing.T) {
	testutil.SkipIfShort(t)
	cases := []struct {
		name     string
		start    time.Duration // what workers have taken to start, as if measured
		template string
		timeout  time.Duration // the slow render's
		shared   bool
	}{
		{"ends within a start", time.Minute, "{{ range until 1000 }}{{ range until 3000 }}{{ end }}{{ end }}x: 1\n", 30 * time.Second, true},
		{"outlasts a start", 50 * time.Millisecond, "{{ range until 10000 }}{{ range until 10000 }}{{ range until 10000 }}{{ end }}{{ end }}{{ end }}\n", 2 * time.Second, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			testutil.WriteTree(t, root, chartFiles("slow", "", c.template))
			head, base := isolatedRenderer(t, root), otherRoot(t)
			head.opts.SourceTimeout = c.timeout
			headPool, basePool := newWorkerPool(head), newWorkerPool(base)
			defer basePool.Close()
			defer headPool.Close()
			renderSmall(t, headPool, head) // the worker has started: its start is noted
			measured, _ := workers.StartTime(headPool.Key())
			workers.SetStartTime(headPool.Key(), c.start)
			t.Cleanup(func() { workers.SetStartTime(headPool.Key(), measured) })
			busyPID := make(chan int, 1)
			done := make(chan time.Time, 1)
			go func() {
				w := workers.Idle(headPool.Key())[0]
				busyPID <- w.PID()
				renderIsolated(context.Background(), headPool, head, SourceSpec{Path: "slow", Type: SourceHelm})
				done <- time.Now()
			}()
			pid := <-busyPID
			waitBusy(t, headPool.Key())
			name, basePID := renderSmall(t, basePool, base)
			baseDone := time.Now()
			headDone := <-done
			if name != "other" {
				t.Errorf("the base rendered %s, want its own root's object", name)
			}
			if c.shared && (basePID != pid || baseDone.Before(headDone)) {
				t.Errorf("the base rendered in process %d (the busy worker is %d) before the head's render ended: want it to wait for that worker", basePID, pid)
			}
			if !c.shared && (basePID == pid || !baseDone.Before(headDone.Add(-time.Second))) {
				t.Errorf("the base rendered in process %d (the busy worker is %d), %s before the head's render ended: want a worker of its own, at once", basePID, pid, headDone.Sub(baseDone))
			}
		})
	}
}

// waitBusy waits until a worker of key is out on a request.
func waitBusy(t *testing.T, key string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if workers.Busy(key) > 0 {
			return
		}
	}
	t.Fatal("no worker took the request")
}

// A pool waiting for another's busy worker stops waiting when its context
// ends: the source is cancelled, not rendered in-process.
func TestPoolWaitEndsWithTheContext(t *testing.T) {
	testutil.SkipIfShort(t)
	root := t.TempDir()
	testutil.WriteTree(t, root, chartFiles("spin", "", "{{ range until 10000 }}{{ range until 10000 }}{{ range until 10000 }}{{ end }}{{ end }}{{ end }}\n"))
	head, base := isolatedRenderer(t, root), otherRoot(t)
	head.opts.SourceTimeout = 2 * time.Second
	headPool, basePool := newWorkerPool(head), newWorkerPool(base)
	defer basePool.Close()
	defer headPool.Close()
	renderSmall(t, headPool, head)
	measured, _ := workers.StartTime(headPool.Key())
	workers.SetStartTime(headPool.Key(), time.Hour)
	defer workers.SetStartTime(headPool.Key(), measured)
	done := make(chan struct{})
	go func() {
		renderIsolated(context.Background(), headPool, head, SourceSpec{Path: "spin", Type: SourceHelm})
		close(done)
	}()
	waitBusy(t, headPool.Key())
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	out, ok := renderIsolated(ctx, basePool, base, SourceSpec{Path: "small", Type: SourcePlain})
	cancelled := slices.ContainsFunc(out.Result.Findings, func(f check.Finding) bool { return f.Check == check.RenderCancelled })
	if took := time.Since(start); !ok || !cancelled || took > time.Second {
		t.Errorf("after its context ended the waiting source got %+v (ok %v) in %s; want it cancelled at once", out.Result, ok, took)
	}
	<-done
}
