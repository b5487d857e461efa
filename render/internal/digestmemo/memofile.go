package digestmemo

import (
	"encoding/binary"
	"hash/crc32"
	"os"
	"strings"

	"github.com/capreport/capreport/internal/safefile"
	"github.com/capreport/capreport/render/internal/cachefile"
	"github.com/capreport/capreport/render/internal/wiredoc"
)

// The memo's file is a header, then batches of entries, each written in
// one append: a warm run that learnt a few digests adds a batch of them
// instead of writing the whole memo again (which, with tens of thousands
// of files, cost a diff more than the render of the chart it changed). A
// batch is its payload's length, the payload, and the payload's CRC-32, so
// that a batch torn by a crash or by another process's append is seen: it
// and what follows are dropped, and the next save writes the file whole
// again. Later batches override earlier ones. A save also compacts the
// file into one batch once it holds memoMaxBatches.

const (
	// memoEntryBytes is about what an entry takes: a path, five numbers,
	// a hex SHA-256.
	memoEntryBytes = 128
	memoMagic      = "capreport-digest-memo-v2\n"
	memoMaxBatches = 16
	memoMaxBytes   = 256 << 20
)

// readMemoFile returns the entries of the memo file at path, how many
// batches held them, and whether the file held nothing else (a missing,
// foreign or torn file is not intact: it is to be written whole again).
func readMemoFile(path string) (entries map[string]Entry, batches int, intact bool) {
	f, fi, err := safefile.Open(path, false) // a regular file, as readEntry's
	if err != nil {
		return map[string]Entry{}, 0, false
	}
	if fi.Size() > memoMaxBytes {
		f.Close()
		return map[string]Entry{}, 0, false
	}
	defer f.Close()
	// Read into a string: paths and digests are cut from it (a string per
	// entry was most of the time a run took to read the memo).
	text, _, err := cachefile.ReadString(f, fi.Size(), 0)
	if err != nil {
		return map[string]Entry{}, 0, false
	}
	return parseMemoFile(text)
}

// parseMemoFile is readMemoFile on the file's contents.
func parseMemoFile(data string) (entries map[string]Entry, batches int, intact bool) {
	if !strings.HasPrefix(data, memoMagic) {
		return map[string]Entry{}, 0, false
	}
	data = data[len(memoMagic):]
	// Growing the map as it fills was half the time the memo took to
	// read; one too large is zeroed for nothing.
	entries = make(map[string]Entry, len(data)/memoEntryBytes)
	for len(data) > 0 {
		n, k := wiredoc.Uvarint(data)
		if k <= 0 || n > uint64(len(data)-k) || uint64(len(data)-k)-n < 4 {
			break
		}
		end := k + int(n)
		sum := uint32(data[end]) | uint32(data[end+1])<<8 | uint32(data[end+2])<<16 | uint32(data[end+3])<<24
		if stringCRC(data[k:end]) != sum || !decodeMemoBatch(&memoReader{s: data[k:end]}, entries) {
			break
		}
		batches++
		data = data[end+4:]
	}
	return entries, batches, len(data) == 0
}

// stringCRC is the CRC-32 (IEEE) of s, copied through a small buffer.
func stringCRC(s string) uint32 {
	var buf [4096]byte
	var sum uint32
	for len(s) > 0 {
		n := copy(buf[:], s)
		sum = crc32.Update(sum, crc32.IEEETable, buf[:n])
		s = s[n:]
	}
	return sum
}

// appendMemoBatch encodes entries as one batch after b.
func appendMemoBatch(b []byte, entries map[string]Entry) []byte {
	payload := binary.AppendUvarint(nil, uint64(len(entries)))
	for path, e := range entries {
		payload = appendMemoString(payload, path)
		for _, v := range [...]int64{e.Stat.Size, e.Stat.Mtime, e.Stat.Ctime, int64(e.Stat.Ino), int64(e.Stat.Dev)} {
			payload = binary.AppendVarint(payload, v)
		}
		payload = appendMemoString(payload, e.Digest)
	}
	b = binary.AppendUvarint(b, uint64(len(payload)))
	b = append(b, payload...)
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(payload))
}

func appendMemoString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// memoReader reads a batch's payload, a string whose substrings the
// entries keep.
type memoReader struct {
	s string
}

func (r *memoReader) uvarint() (uint64, bool) {
	v, k := wiredoc.Uvarint(r.s)
	r.skip(k)
	return v, k > 0
}

func (r *memoReader) varint() (int64, bool) {
	v, k := wiredoc.Varint(r.s)
	r.skip(k)
	return v, k > 0
}

func (r *memoReader) str() (string, bool) {
	n, ok := r.uvarint()
	if !ok || n > uint64(len(r.s)) {
		return "", false
	}
	s := r.s[:n]
	r.skip(int(n))
	return s, true
}

func (r *memoReader) skip(k int) {
	if k > 0 {
		r.s = r.s[k:]
	}
}

// decodeMemoBatch adds a batch's entries to into; false when the payload
// is not one appendMemoBatch wrote (into may then hold part of it, which
// the checksum makes as unlikely as a collision).
func decodeMemoBatch(r *memoReader, into map[string]Entry) bool {
	count, ok := r.uvarint()
	if !ok || count > uint64(len(r.s)) {
		return false
	}
	for range count {
		path, ok := r.str()
		var st [5]int64
		for i := range st {
			v, ok := r.varint()
			if !ok {
				return false
			}
			st[i] = v
		}
		digest, ok2 := r.str()
		if !ok || !ok2 {
			return false
		}
		into[path] = Entry{Stat: Stat{Size: st[0], Mtime: st[1], Ctime: st[2], Ino: uint64(st[3]), Dev: uint64(st[4])}, Digest: digest}
	}
	return len(r.s) == 0
}

// appendMemoFile adds one batch to the memo file at path, which must exist
// with its header: one write, so that another process's append lands
// before or after it.
func appendMemoFile(path string, entries map[string]Entry) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	_, err = f.Write(appendMemoBatch(nil, entries))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
