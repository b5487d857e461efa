package cache

import (
	"reflect"
	"testing"

	"github.com/capreport/capreport/internal/testutil"
	"github.com/capreport/capreport/render/internal/object"
)

// While caches are open, an entry file is read once for all of them (a
// diff's head and base check the same ones); once the last closes, the
// copies go.
func TestSharedEntries(t *testing.T) {
	dir := t.TempDir()
	p := dir + "/e" + Ext
	b, err := Encode(Entry{Inputs: []Input{{Op: "file", Path: "a", Digest: "d"}}, Objects: []object.Object{}})
	if err != nil {
		t.Fatal(err)
	}
	testutil.WriteTree(t, dir, map[string]string{"e" + Ext: string(b)})
	openEntries()
	openEntries()
	first, ok1 := sharedEntry(p)
	second, ok2 := sharedEntry(p)
	if !ok1 || !ok2 || first != second {
		t.Errorf("two open caches read the entry apart: %p %p", first, second)
	}
	closeEntries()
	if third, _ := sharedEntry(p); third != first {
		t.Error("the entry was read again while a cache was still open")
	}
	closeEntries()
	readEntries.Lock()
	defer readEntries.Unlock()
	if len(readEntries.byPath) != 0 {
		t.Errorf("%d entries kept after the last cache closed", len(readEntries.byPath))
	}
}

// A key's directory is listed once while caches are open, and again after
// the process stores an entry under it.
func TestSharedListing(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteTree(t, dir, map[string]string{"a" + Ext: "x"})
	openEntries()
	defer closeEntries()
	if got := sharedListing(dir); !reflect.DeepEqual(got, []string{"a" + Ext}) {
		t.Fatalf("listing %v", got)
	}
	testutil.WriteTree(t, dir, map[string]string{"b" + Ext: "x"})
	if got := sharedListing(dir); len(got) != 1 {
		t.Errorf("listed again while open: %v", got)
	}
	forgetListing(dir)
	if got := sharedListing(dir); len(got) != 2 {
		t.Errorf("after a store the listing is %v, want both entries", got)
	}
}
