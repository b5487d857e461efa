package digestmemo

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/capreport/capreport/internal/testutil"
)

// corpusFiles is every regular file of ../shared/corpus and
// ../shared/corpus-gitops, by absolute path: what a warm run with --cache
// checks when each source of those repositories is taken from the cache.
func corpusFiles(b *testing.B) []string {
	b.Helper()
	var files []string
	for _, name := range []string{"corpus", "corpus-gitops"} {
		dir, ok := testutil.Shared(b, name)
		if !ok {
			b.Skipf("%s not present", dir)
		}
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				files = append(files, p)
			}
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	return files
}

// boltValue is a Entry as the bbolt variant stores it: the five stat
// numbers, then the digest.
func boltValue(e Entry) []byte {
	v := make([]byte, 0, 40+len(e.Digest))
	for _, n := range [...]uint64{uint64(e.Stat.Size), uint64(e.Stat.Mtime), uint64(e.Stat.Ctime), e.Stat.Ino, e.Stat.Dev} {
		v = binary.LittleEndian.AppendUint64(v, n)
	}
	return append(v, e.Digest...)
}

func boltDigest(v []byte, st Stat) (string, bool) {
	if len(v) < 40 {
		return "", false
	}
	var n [5]uint64
	for i := range n {
		n[i] = binary.LittleEndian.Uint64(v[8*i:])
	}
	got := Stat{Size: int64(n[0]), Mtime: int64(n[1]), Ctime: int64(n[2]), Ino: n[3], Dev: n[4]}
	return string(v[40:]), got == st
}

// memoFixture is the corpora's files with their digests, written as a
// memo file and as a bbolt database.
type memoFixture struct {
	files            []string
	entries          map[string]Entry
	bytes            int64
	memoPath, dbPath string
}

var memoBucket = []byte("digests")

func newMemoFixture(b *testing.B) *memoFixture {
	fx := &memoFixture{files: corpusFiles(b), entries: map[string]Entry{}}
	for _, f := range fx.files {
		st, ok := StatOf(f, false)
		data, err := os.ReadFile(f)
		if !ok || err != nil {
			b.Fatalf("%s: %v", f, err)
		}
		fx.bytes += int64(len(data))
		fx.entries[f] = Entry{Stat: st, Digest: sha256Hex(data)}
	}
	dir := b.TempDir()
	fx.memoPath, fx.dbPath = filepath.Join(dir, "memo.bin"), filepath.Join(dir, "memo.db")
	if err := os.WriteFile(fx.memoPath, appendMemoBatch([]byte(memoMagic), fx.entries), 0o644); err != nil {
		b.Fatal(err)
	}
	db, err := bolt.Open(fx.dbPath, 0o600, nil)
	if err != nil {
		b.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		bk, err := tx.CreateBucketIfNotExists(memoBucket)
		for k, e := range fx.entries {
			if err == nil {
				err = bk.Put([]byte(k), boltValue(e))
			}
		}
		return err
	})
	if err != nil || db.Close() != nil {
		b.Fatal(err)
	}
	return fx
}

// memoHits is how many files the memo file answers by their stat.
func (fx *memoFixture) memoHits() int {
	m := &Memo{path: fx.memoPath, start: time.Now(), learnt: map[string]Entry{}}
	m.old, m.batches, m.intact = readMemoFile(fx.memoPath)
	m.now = map[string]Entry{}
	hits := 0
	for _, f := range fx.files {
		if st, ok := StatOf(f, false); ok {
			if _, ok := m.Digest(f, st); ok {
				hits++
			}
		}
	}
	return hits
}

// boltHits is how many files the bbolt database answers by their stat.
func (fx *memoFixture) boltHits(b *testing.B) int {
	db, err := bolt.Open(fx.dbPath, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	hits := 0
	_ = db.View(func(tx *bolt.Tx) error {
		bk := tx.Bucket(memoBucket)
		for _, f := range fx.files {
			if st, ok := StatOf(f, false); ok {
				if _, ok := boltDigest(bk.Get([]byte(f)), st); ok {
					hits++
				}
			}
		}
		return nil
	})
	return hits
}

// rehashHits is how many files hash to their recorded digest, read whole.
func (fx *memoFixture) rehashHits() int {
	hits := 0
	for _, f := range fx.files {
		data, err := os.ReadFile(f)
		if err == nil && sha256Hex(data) == fx.entries[f].Digest {
			hits++
		}
	}
	return hits
}

// BenchmarkDigestMemoCorpus answers "what is the digest of each file of
// the corpora now?" as a warm run does for every input of every cached
// source: with the hand-written memo file (read it, stat each file), with
// the same entries in a bbolt database (open it, stat each file, look it
// up), and without a memo (read and hash each file: a plain
// content-addressed cache's check). The memo was written for the
// 117-chart bitnami checkout, where hashing was two thirds of a warm diff.
func BenchmarkDigestMemoCorpus(b *testing.B) {
	fx := newMemoFixture(b)
	for _, v := range []struct {
		name string
		hits func() int
	}{
		{"memo", fx.memoHits},
		{"bbolt", func() int { return fx.boltHits(b) }},
		{"rehash", fx.rehashHits},
	} {
		b.Run(v.name, func(b *testing.B) {
			if v.name == "rehash" {
				b.SetBytes(fx.bytes)
			}
			b.ReportAllocs()
			for b.Loop() {
				if hits := v.hits(); hits != len(fx.files) {
					b.Fatalf("%d of %d files answered", hits, len(fx.files))
				}
			}
			b.ReportMetric(float64(len(fx.files)), "files/op")
		})
	}
}

// sha256Hex is the digest the render cache records of a file's bytes.
func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
