package render

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
	"os"
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
	memoMagic      = "capreport-digest-memo-v1\n"
	memoMaxBatches = 16
	memoMaxBytes   = 256 << 20
)

// readMemoFile returns the entries of the memo file at path, how many
// batches held them, and whether the file held nothing else (a missing,
// foreign or torn file is not intact: it is to be written whole again).
func readMemoFile(path string) (entries map[string]memoEntry, batches int, intact bool) {
	f, err := os.Open(path)
	if err != nil {
		return map[string]memoEntry{}, 0, false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, memoMaxBytes))
	if err != nil {
		return map[string]memoEntry{}, 0, false
	}
	return parseMemoFile(data)
}

// parseMemoFile is readMemoFile on the file's bytes.
func parseMemoFile(data []byte) (entries map[string]memoEntry, batches int, intact bool) {
	entries = map[string]memoEntry{}
	if !bytes.HasPrefix(data, []byte(memoMagic)) {
		return entries, 0, false
	}
	data = data[len(memoMagic):]
	for len(data) > 0 {
		n, k := binary.Uvarint(data)
		if k <= 0 || n > uint64(len(data)-k) || uint64(len(data)-k)-n < 4 {
			break
		}
		payload := data[k : k+int(n)]
		sum := binary.LittleEndian.Uint32(data[k+int(n):])
		if crc32.ChecksumIEEE(payload) != sum || !decodeMemoBatch(payload, entries) {
			break
		}
		batches++
		data = data[k+int(n)+4:]
	}
	return entries, batches, len(data) == 0
}

// appendMemoBatch encodes entries as one batch after b.
func appendMemoBatch(b []byte, entries map[string]memoEntry) []byte {
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

// decodeMemoBatch adds a batch's entries to into; false when the payload
// is not one appendMemoBatch wrote (into may then hold part of it, which
// the checksum makes as unlikely as a collision).
func decodeMemoBatch(p []byte, into map[string]memoEntry) bool {
	count, k := binary.Uvarint(p)
	if k <= 0 || count > uint64(len(p)) {
		return false
	}
	p = p[k:]
	str := func() (string, bool) {
		n, k := binary.Uvarint(p)
		if k <= 0 || n > uint64(len(p)-k) {
			return "", false
		}
		s := string(p[k : k+int(n)])
		p = p[k+int(n):]
		return s, true
	}
	for range count {
		path, ok := str()
		var st [5]int64
		for i := range st {
			v, k := binary.Varint(p)
			if k <= 0 {
				return false
			}
			st[i], p = v, p[k:]
		}
		digest, ok2 := str()
		if !ok || !ok2 {
			return false
		}
		into[path] = memoEntry{Stat: fileStat{Size: st[0], Mtime: st[1], Ctime: st[2], Ino: uint64(st[3]), Dev: uint64(st[4])}, Digest: digest}
	}
	return len(p) == 0
}

// appendMemoFile adds one batch to the memo file at path, which must exist
// with its header: one write, so that another process's append lands
// before or after it.
func appendMemoFile(path string, entries map[string]memoEntry) error {
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
