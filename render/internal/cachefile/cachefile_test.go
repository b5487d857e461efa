package cachefile

import (
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// ReadString reads the bytes asked for, through short reads too, and
// sums all but the last unsummed of them; a file shorter than asked is an
// error.
func TestReadString(t *testing.T) {
	text := strings.Repeat("entry ", 10_000) + "CRC!"
	got, sum, err := ReadString(iotest.OneByteReader(strings.NewReader(text)), int64(len(text)), 4)
	if err != nil || got != text {
		t.Fatalf("read %d bytes, err %v; want all %d", len(got), err, len(text))
	}
	if want := crc32.ChecksumIEEE([]byte(text[:len(text)-4])); sum != want {
		t.Errorf("sum %08x, want %08x (all but the last 4 bytes)", sum, want)
	}
	if _, _, err := ReadString(strings.NewReader("short"), 10, 0); err == nil {
		t.Error("a reader shorter than the size asked for read without error")
	}
}

// KeepNewest keeps the n most recently modified files with the extension
// and leaves the others alone.
func TestKeepNewest(t *testing.T) {
	dir := t.TempDir()
	at := time.Now().Add(-time.Hour)
	for i, name := range []string{"a.bin", "b.bin", "c.bin", "d.bin", "keep.txt"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		mod := at.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(p, mod, mod); err != nil {
			t.Fatal(err)
		}
	}
	KeepNewest(dir, ".bin", 2)
	var left []string
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		left = append(left, e.Name())
	}
	if want := []string{"c.bin", "d.bin", "keep.txt"}; !slices.Equal(left, want) {
		t.Errorf("left %v, want %v", left, want)
	}
}
