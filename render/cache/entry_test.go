package cache

import (
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render/internal/object"
)

// filled sets every field of the value v points to, recursively, to
// something other than its zero value (a slice or map of one element),
// so that a codec that forgets a field fails a round trip.
func filled(t *testing.T, v reflect.Value, seed *int) {
	t.Helper()
	*seed++
	switch v.Kind() {
	case reflect.String:
		v.SetString("s" + string(rune('a'+*seed%26)))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int32, reflect.Int64:
		v.SetInt(int64(*seed))
	case reflect.Struct:
		for i := range v.NumField() {
			filled(t, v.Field(i), seed)
		}
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		filled(t, v.Elem(), seed)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		filled(t, v.Index(0), seed)
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		filled(t, k, seed)
		filled(t, e, seed)
		v.SetMapIndex(k, e)
	default:
		t.Fatalf("filled: no value for a %s", v.Type())
	}
}

func entryFile(t *testing.T, inputs []Input, out Entry) string {
	t.Helper()
	out.Inputs = inputs
	b, err := Encode(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func parsed(file string) (*Stored, bool) {
	if len(file) < 4 {
		return nil, false
	}
	return Parse(file, crc32.ChecksumIEEE([]byte(file[:len(file)-4])))
}

// Every field of what an entry holds comes back: each object's identity,
// origin and document, the result with every finding's fields (those the
// report's JSON leaves out too), and the covered and dropped paths; nil
// lists and maps stay nil.
func TestCacheEntryRoundTrip(t *testing.T) {
	seed := 0
	var origin object.Origin
	filled(t, reflect.ValueOf(&origin).Elem(), &seed)
	var result object.SourceResult
	filled(t, reflect.ValueOf(&result).Elem(), &seed)
	result.Cached = false // set by load, never stored
	doc := map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "spec": map[string]any{"replicas": int64(3), "list": []any{}}}
	inputs := []Input{{Op: "file", Path: "charts/a/values.yaml", Digest: "d1"}, {Op: "dir", Path: ".", Digest: "d2"}}
	for i, out := range []Entry{
		{Objects: []object.Object{{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", Namespace: "prod", Doc: doc, Origin: origin}},
			Result: result, Covered: []string{"charts/a"}, Dropped: []string{"v1/Service/web"}},
		{Objects: []object.Object{{APIVersion: "v1", Kind: "ConfigMap", Name: "c", Doc: map[string]any{}}}, Result: object.SourceResult{Path: "p", Status: object.StatusRendered}},
		{Objects: []object.Object{}, Covered: []string{}, Dropped: []string{}},
	} {
		entry, ok := parsed(entryFile(t, inputs, out))
		if !ok || !reflect.DeepEqual(entry.inputs, inputs) {
			t.Fatalf("%d: header: ok %v, inputs %+v", i, ok, entry)
		}
		got, ok := entry.Decode()
		if !ok {
			t.Fatalf("%d: body does not decode", i)
		}
		if out.Inputs = inputs; !reflect.DeepEqual(got, out) {
			t.Errorf("%d: round trip:\n got %#v\nwant %#v", i, got, out)
		}
	}
}

// A damaged entry file, a truncated one or one of another format is
// never found: the source renders again.
func TestCacheEntryDamaged(t *testing.T) {
	file := entryFile(t, []Input{{Op: "file", Path: "a", Digest: "d"}}, Entry{Objects: []object.Object{{APIVersion: "v1", Kind: "ConfigMap", Name: "c", Doc: map[string]any{"data": map[string]any{"k": "v"}}}}})
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if _, ok := Read(write("good", file)); !ok {
		t.Fatal("an intact entry was not read")
	}
	flipped := []byte(file)
	flipped[len(flipped)/2] ^= 0x20
	for name, content := range map[string]string{
		"flipped":   string(flipped),
		"truncated": file[:len(file)-9],
		"empty":     "",
		"other":     "capreport-render-cache-v4\n" + file[len(Format)+1:],
	} {
		if _, ok := Read(write(name, content)); ok {
			t.Errorf("%s entry was read", name)
		}
	}
}

// FuzzCacheEntry: whatever an entry file holds, reading it never panics
// or allocates past its size, and what reads as an entry decodes to what
// encodes back to the same bytes.
func FuzzCacheEntry(f *testing.F) {
	seed := 0
	var origin object.Origin
	filled(&testing.T{}, reflect.ValueOf(&origin).Elem(), &seed)
	b, err := Encode(Entry{Inputs: []Input{{Op: "file", Path: "a", Digest: "d"}},
		Objects: []object.Object{{APIVersion: "v1", Kind: "ConfigMap", Name: "c", Doc: map[string]any{"data": map[string]any{"k": "v"}}, Origin: origin}},
		Result:  object.SourceResult{Path: "a", Status: object.StatusRendered, Findings: []check.Finding{{Check: "x", Message: "m", Source: "a", Cause: "c"}}},
		Covered: []string{"a"}})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b[:len(b)-4])
	f.Add([]byte(Format + "\n\x01\x01"))
	f.Fuzz(func(t *testing.T, body []byte) {
		file := string(body) + "\x00\x00\x00\x00"
		sum := crc32.ChecksumIEEE(body)
		file = file[:len(body)] + string([]byte{byte(sum), byte(sum >> 8), byte(sum >> 16), byte(sum >> 24)})
		entry, ok := Parse(file, sum)
		if !ok {
			return
		}
		out, ok := entry.Decode()
		if !ok {
			return
		}
		again, err := Encode(out)
		if err != nil {
			t.Fatalf("decoded %+v but cannot encode it: %v", out, err)
		}
		entry2, ok := parsed(string(again))
		if !ok {
			t.Fatal("the entry written again does not read")
		}
		out2, ok := entry2.Decode()
		if !ok || !reflect.DeepEqual(entry2.inputs, entry.inputs) || !sameOut(out, out2) {
			t.Fatalf("round trip changed %+v into %+v", out, out2)
		}
	})
}

// sameOut compares two decoded entries, documents by sameDoc (a float
// NaN is itself).
func sameOut(a, b Entry) bool {
	if len(a.Objects) != len(b.Objects) {
		return false
	}
	for i := range a.Objects {
		x, y := a.Objects[i], b.Objects[i]
		x.Doc, y.Doc = nil, nil
		if !reflect.DeepEqual(x, y) || !reflect.DeepEqual(fmtDoc(a.Objects[i].Doc), fmtDoc(b.Objects[i].Doc)) {
			return false
		}
	}
	a.Objects, b.Objects = nil, nil
	return reflect.DeepEqual(a, b)
}

// fmtDoc prints a document with its map keys in order and a NaN as
// itself (the wiredoc fuzzer checks the types).
func fmtDoc(d map[string]any) string { return fmt.Sprintf("%#v", d) }
