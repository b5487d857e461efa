package gitops

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/capreport/capreport/render/internal/object"
	"github.com/capreport/capreport/render/internal/source"
)

// Builds asked for ahead run at most limit at once, first asked first
// begun, each once however often it is asked for; the walk's own renders
// share those limit slots; take waits for a build begun and not yet made,
// and wait for all of them.
func TestRenderMemoAhead(t *testing.T) {
	m := newRenderMemo(2)
	release := make(chan struct{})
	var running, most, built atomic.Int32
	var mu sync.Mutex
	var begun []string
	started := make(chan string, 8)
	build := func(path string) func() source.Out {
		return func() source.Out {
			mu.Lock()
			begun = append(begun, path)
			mu.Unlock()
			started <- path
			n := running.Add(1)
			for {
				if old := most.Load(); n <= old || most.CompareAndSwap(old, n) {
					break
				}
			}
			<-release
			running.Add(-1)
			built.Add(1)
			return source.Out{Result: object.SourceResult{Path: path, Status: object.StatusRendered}}
		}
	}
	specs := map[string]source.Spec{}
	for _, p := range []string{"a", "b", "c", "d"} {
		spec := source.Spec{Path: p, Type: object.SourceKustomize, Delivery: &source.Delivery{LoadAnywhere: true}}
		key, ok := specKey(spec)
		if !ok {
			t.Fatal("no key")
		}
		specs[p] = spec
		m.ahead(key, build(p))
		m.ahead(key, build(p+" again")) // asked for twice: built once
	}
	taken := make(chan source.Out)
	go func() {
		out, ok := m.take(specs["c"])
		if !ok {
			t.Error("take found no build of c")
		}
		taken <- out
	}()
	first := []string{<-started, <-started}
	if first[0] > "b" || first[1] > "b" {
		t.Errorf("builds begun first: %v, want a and b", first)
	}
	own := make(chan struct{})
	go func() {
		m.slotted(func() source.Out { close(own); return source.Out{} })
	}()
	select {
	case <-own:
		t.Error("the walk's own render ran while both slots were taken")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	<-own
	if out := <-taken; out.Result.Path != "c" || out.Spec.Path != "c" {
		t.Errorf("take gave %+v, want c's build labelled with c's spec", out.Result)
	}
	m.wait()
	if built.Load() != 4 || most.Load() > 2 {
		t.Errorf("%d builds, at most %d at once; want 4, at most 2", built.Load(), most.Load())
	}
	if len(begun) != 4 {
		t.Errorf("builds begun: %v, want a, b, c and d", begun)
	}
	if _, ok := m.take(source.Spec{Path: "e", Delivery: &source.Delivery{}}); ok {
		t.Error("take found a build nobody asked for")
	}
}
