package render

import (
	"hash/crc32"
	"reflect"
	"testing"
	"time"

	"github.com/capreport/capreport/render/cache"
	"github.com/capreport/capreport/render/internal/object"
)

// The pools made after Prestart take its workers as their spares, and
// render with them; they are no workers of another command or memory
// limit (worker's TestTakeIdleRanks ranks them).
// The workers outlive a pool's close while the Prestart holds them, and
// release stops them.
func TestPrestart(t *testing.T) {
	opts := isolated(DefaultOptions())
	release := Prestart(opts.Isolation, 2)
	waiting := workers.Idle(workerKey(opts.Isolation))
	if len(waiting) != 2 {
		t.Fatalf("%d workers prestarted, want 2", len(waiting))
	}
	for _, other := range []Isolation{{Command: []string{"/bin/true"}}, {Command: opts.Isolation.Command, MaxMemory: 64 << 20}} {
		if idle := workers.Idle(workerKey(other)); len(idle) != 0 {
			t.Errorf("a pool of %+v would take the prestarted workers %v", other, idle)
		}
	}
	rd := isolatedRenderer(t, t.TempDir())
	pool := newWorkerPool(rd)
	if idle := workers.Idle(pool.Key()); len(idle) != 2 {
		t.Errorf("the pool started a spare of its own beside the prestarted workers: %d idle", len(idle))
	}
	name, pid := renderSmall(t, pool, rd)
	if name != "web" || pid != waiting[0].PID() {
		t.Errorf("rendered %s in process %d, want the one HPA in the first prestarted worker %d", name, pid, waiting[0].PID())
	}
	pool.Close()
	select {
	case <-waiting[1].Exited():
		t.Fatal("a pool's close stopped a worker the Prestart still holds")
	case <-time.After(100 * time.Millisecond):
	}
	release()
	for _, w := range waiting {
		select {
		case <-w.Exited():
		case <-time.After(10 * time.Second):
			t.Fatal("release left a worker running")
		}
	}
	if idle := workers.Idle(pool.Key()); len(idle) != 0 {
		t.Errorf("%d released workers still there to take", len(idle))
	}
}

// Two builds that load one entry share its decoded documents and nothing
// they write: each filters its own slice, and Flux's commonMetadata and a
// default namespace written into one build's object leave the other's as
// the entry holds it.
func TestSharedBodyIsolatesBuilds(t *testing.T) {
	doc := func(name string) map[string]any {
		return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": name, "labels": map[string]any{"a": "1"}}}
	}
	b, err := cache.Encode(cache.Entry{Inputs: []cache.Input{{Op: "file", Path: "a", Digest: "d"}}, Objects: []Object{
		{APIVersion: "v1", Kind: "ConfigMap", Name: "x", Doc: doc("x")},
		{APIVersion: "v1", Kind: "ConfigMap", Name: "y", Doc: doc("y")},
	}})
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	e, ok := cache.Parse(text, crc32.ChecksumIEEE([]byte(text[:len(text)-4])))
	if !ok {
		t.Fatal("the entry does not parse")
	}
	c := cache.Open(cache.Options{Dir: t.TempDir()})
	defer c.Close()
	headEntry, ok1 := c.Load(e)
	baseEntry, ok2 := c.Load(e)
	if !ok1 || !ok2 {
		t.Fatal("the body does not decode")
	}
	head, base := fromEntry(headEntry), fromEntry(baseEntry)
	if head.Objects[0].Doc["metadata"].(map[string]any)["name"] != "x" || &head.Objects[0] == &base.Objects[0] {
		t.Fatal("the builds do not each get their own slice of the entry's objects")
	}
	head.Objects = head.Objects[:1] // a build's keep filters in place
	object.MergeMetadata(&head.Objects[0], map[string]any{"a": "2", "b": "3"}, nil)
	object.SetDefaultNamespace(&head.Objects[0], "team")
	want := doc("x")
	if !reflect.DeepEqual(base.Objects[0].Doc, want) || base.Objects[1].Name != "y" {
		t.Errorf("the other build's objects changed: %v, %s", base.Objects[0].Doc, base.Objects[1].Name)
	}
	md := head.Objects[0].Doc["metadata"].(map[string]any)
	if md["namespace"] != "team" || !reflect.DeepEqual(md["labels"], map[string]any{"a": "2", "b": "3"}) {
		t.Errorf("the writing build's object is %v", head.Objects[0].Doc)
	}
}
