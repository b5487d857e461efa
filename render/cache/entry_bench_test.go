package cache_test

import (
	"bytes"
	"context"
	"encoding/gob"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/capreport/capreport/internal/atomicfile"
	"github.com/capreport/capreport/internal/testutil"
	"github.com/capreport/capreport/render"
	"github.com/capreport/capreport/render/cache"
	"github.com/capreport/capreport/render/internal/object"
	"github.com/capreport/capreport/render/internal/wiredoc"
)

// corpusEntries renders every case of ../shared/corpus and every
// repository of ../shared/corpus-gitops with a render cache, as
// `capreport --cache` does, and returns what each entry the cache wrote
// holds (its inputs included): the entries a warm run reads.
func corpusEntries(b *testing.B) []cache.Entry {
	b.Helper()
	cacheDir := b.TempDir()
	for _, name := range []string{"corpus", "corpus-gitops"} {
		dir, ok := testutil.Shared(b, name)
		if !ok {
			b.Skipf("%s not present", dir)
		}
		cases, err := os.ReadDir(dir)
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range cases {
			if !c.IsDir() {
				continue
			}
			opts := render.DefaultOptions()
			opts.Helm = render.HelmValues{ReleaseName: "rel", Namespace: "demo"}
			opts.RenderCacheDir = cacheDir
			root := filepath.Join(dir, c.Name())
			if _, err := render.Render(context.Background(), root, opts); err != nil {
				b.Logf("%s: %v", root, err) // a case that fails stores nothing
			}
		}
	}
	var outs []cache.Entry
	err := filepath.WalkDir(cacheDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, cache.Ext) {
			return err
		}
		e, ok := cache.Read(p)
		if !ok {
			b.Fatalf("%s: not an entry", p)
		}
		out, ok := e.Decode()
		if !ok {
			b.Fatalf("%s: body does not decode", p)
		}
		outs = append(outs, out)
		return nil
	})
	if err != nil || len(outs) == 0 {
		b.Fatalf("no entries (%v)", err)
	}
	return outs
}

// gobEntry is an entry as encoding/gob would hold it, the documents still
// in wiredoc's form inside (gobObject), so that only the entry's own
// format is compared.
type gobEntry struct {
	Inputs           []cache.Input
	Objects          []gobObject
	Result           gobResult
	Covered, Dropped []string
}

// gobObject is an object as a worker's reply carries it (render's
// wireObject): its document in wiredoc's form.
type gobObject struct {
	APIVersion, Kind, Name, Namespace string
	Doc                               []byte
	Origin                            object.Origin
}

// gobResult is the result as an entry holds it, with each finding's
// Source and Cause, which the report's JSON leaves out.
type gobResult struct {
	object.SourceResult
	Untraced                      bool
	FindingSources, FindingCauses []string
}

func toGobEntry(out cache.Entry) (gobEntry, error) {
	res := gobResult{SourceResult: out.Result, Untraced: out.Result.Untraced}
	for _, f := range out.Result.Findings {
		res.FindingSources = append(res.FindingSources, f.Source)
		res.FindingCauses = append(res.FindingCauses, f.Cause)
	}
	objs := make([]gobObject, len(out.Objects))
	for i, o := range out.Objects {
		doc, err := wiredoc.Append(nil, o.Doc)
		if err != nil {
			return gobEntry{}, err
		}
		objs[i] = gobObject{APIVersion: o.APIVersion, Kind: o.Kind, Name: o.Name, Namespace: o.Namespace, Doc: doc, Origin: o.Origin}
	}
	return gobEntry{Inputs: out.Inputs, Objects: objs, Result: res, Covered: out.Covered, Dropped: out.Dropped}, nil
}

// entryCodec is one way of writing an entry to a file and reading it
// back whole (inputs, objects, result), as a warm run does.
type entryCodec struct {
	name   string
	encode func(cache.Entry) ([]byte, error)
	decode func(path string) bool
}

var entryCodecs = []entryCodec{
	{"cacheentry", cache.Encode, func(p string) bool {
		e, ok := cache.Read(p)
		if !ok {
			return false
		}
		_, ok = e.Decode()
		return ok
	}},
	{"gob", func(out cache.Entry) ([]byte, error) {
		e, err := toGobEntry(out)
		if err != nil {
			return nil, err
		}
		var buf bytes.Buffer
		err = gob.NewEncoder(&buf).Encode(e)
		return buf.Bytes(), err
	}, func(p string) bool {
		data, err := os.ReadFile(p)
		if err != nil {
			return false
		}
		var e gobEntry
		if gob.NewDecoder(bytes.NewReader(data)).Decode(&e) != nil {
			return false
		}
		for _, o := range e.Objects { // as a wireDoc's GobDecode does
			if _, err := wiredoc.DecodeString(string(o.Doc)); err != nil {
				return false
			}
		}
		return true
	}},
}

// BenchmarkCacheEntryCorpus writes every entry of the corpus's render
// cache to a file and reads every one back, in the hand-written format and
// in gob: encode is what a cold run with --cache adds, decode what a warm
// run pays for each source it takes from the cache.
func BenchmarkCacheEntryCorpus(b *testing.B) {
	outs := corpusEntries(b)
	for _, c := range entryCodecs {
		dir := b.TempDir()
		paths := make([]string, len(outs))
		var size int
		b.Run("encode/"+c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				size = 0
				for i, out := range outs {
					data, err := c.encode(out)
					if err != nil {
						b.Fatal(err)
					}
					paths[i] = filepath.Join(dir, strconv.Itoa(i)+cache.Ext)
					if err := atomicfile.WriteUnsynced(paths[i], data); err != nil {
						b.Fatal(err)
					}
					size += len(data)
				}
			}
			b.ReportMetric(float64(size), "file-bytes/op")
			b.ReportMetric(float64(len(outs)), "entries/op")
		})
		b.Run("decode/"+c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, p := range paths {
					if !c.decode(p) {
						b.Fatalf("%s: does not decode", p)
					}
				}
			}
			b.ReportMetric(float64(len(outs)), "entries/op")
		})
	}
}

// BenchmarkCacheStoreCorpus reads every entry of the corpus's render
// cache back from where a run keeps it: a plain directory of files, one
// per entry (what the cache is), or one bbolt database holding the same
// bytes under the same names. Both decode with the hand-written format,
// so only the store differs.
func BenchmarkCacheStoreCorpus(b *testing.B) {
	outs := corpusEntries(b)
	files := make([][]byte, len(outs))
	for i, out := range outs {
		var err error
		if files[i], err = cache.Encode(out); err != nil {
			b.Fatal(err)
		}
	}
	dir := b.TempDir()
	db, err := bolt.Open(filepath.Join(dir, "cache.db"), 0o600, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	// bbolt syncs each commit unless told not to; the directory's writes
	// are not synced either.
	db.NoSync = true
	b.Run("write/directory", func(b *testing.B) {
		for b.Loop() {
			for i, f := range files {
				if err := atomicfile.WriteUnsynced(filepath.Join(dir, strconv.Itoa(i)+cache.Ext), f); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("write/bbolt", func(b *testing.B) {
		for b.Loop() {
			boltWriteEntries(b, db, files)
		}
	})
	b.Run("read/directory", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for i := range files {
				e, ok := cache.Read(filepath.Join(dir, strconv.Itoa(i)+cache.Ext))
				if !ok {
					b.Fatal("entry does not read")
				}
				if _, ok := e.Decode(); !ok {
					b.Fatal("entry does not decode")
				}
			}
		}
	})
	b.Run("read/bbolt", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			boltReadEntries(b, db, len(files))
		}
	})
}

var entryBucket = []byte("entries")

// boltWriteEntries stores each entry in a transaction of its own, as each
// source's render stores its own.
func boltWriteEntries(b *testing.B, db *bolt.DB, files [][]byte) {
	for i, f := range files {
		err := db.Update(func(tx *bolt.Tx) error {
			bk, err := tx.CreateBucketIfNotExists(entryBucket)
			if err != nil {
				return err
			}
			return bk.Put([]byte(strconv.Itoa(i)), f)
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// boltReadEntries reads and decodes n entries in one transaction: a run
// opens the store once and reads what it needs.
func boltReadEntries(b *testing.B, db *bolt.DB, n int) {
	err := db.View(func(tx *bolt.Tx) error {
		bk := tx.Bucket(entryBucket)
		for i := range n {
			v := bk.Get([]byte(strconv.Itoa(i)))
			end := len(v) - 4
			e, ok := cache.Parse(string(v), crc32.ChecksumIEEE(v[:end]))
			if !ok {
				b.Fatal("entry does not parse")
			}
			if _, ok := e.Decode(); !ok {
				b.Fatal("entry does not decode")
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}
