package cache

import (
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"os"
	"slices"
	"sync"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/internal/safefile"
	"github.com/capreport/capreport/render/internal/cachefile"
	"github.com/capreport/capreport/render/internal/object"
	"github.com/capreport/capreport/render/internal/wiredoc"
)

// Format names the layout of an entry; bump it when it changes.
const Format = "capreport-render-cache-v6"

// Ext ends an entry file's name.
const Ext = ".entry"

// maxEntryBytes bounds the entry file a run reads.
const maxEntryBytes = 1 << 30

// A Stored entry is an entry file as a run has read it. An entry file is
// the format's name and a newline, the header (the
// render's inputs, which say whether the entry still holds), the body (the
// render's objects and result), and the CRC-32 of all that. Strings are
// length-prefixed and documents in wiredoc's form; the result, a small
// tree of report types, is JSON. A run reads an entry file once, and
// every string it decodes is cut from that one copy: entries were gob,
// whose decoder compiles every type again for each file it opens, which
// made decoding a warm diff's 234 entries cost more than rendering the
// chart it changed.
type Stored struct {
	// text is the file without its checksum; body is where the body
	// starts in it.
	text   string
	inputs []Input
	body   int
	// decoded is the body, decoded once for every build that loads the
	// entry (sharedBody).
	decodeOnce sync.Once
	decoded    Entry
	decodedOK  bool
}

// An Entry is what the cache keeps of one source's render.
type Entry struct {
	Objects []object.Object
	Result  object.SourceResult
	// Covered are the root-relative files and directories the render read
	// as parts of the source; Dropped the identities of the delivered
	// objects the run's filter dropped.
	Covered, Dropped []string
	// Inputs are every read the render made.
	Inputs []Input
}

// entryResult is a SourceResult as an entry holds it: JSON, with what the
// report's JSON leaves out beside it.
type entryResult struct {
	object.SourceResult
	Untraced bool `json:"untraced,omitempty"`
	// FindingSources, FindingCauses and FindingAbouts are each finding's
	// Source, Cause and About, in order.
	FindingSources []string         `json:"findingSources,omitempty"`
	FindingCauses  []string         `json:"findingCauses,omitempty"`
	FindingAbouts  []*check.Subject `json:"findingAbouts,omitempty"`
}

// Encode writes out, with the inputs its render read, as an entry file.
func Encode(out Entry) ([]byte, error) {
	res := entryResult{SourceResult: out.Result, Untraced: out.Result.Untraced}
	for _, f := range out.Result.Findings {
		res.FindingSources = append(res.FindingSources, f.Source)
		res.FindingCauses = append(res.FindingCauses, f.Cause)
		res.FindingAbouts = append(res.FindingAbouts, f.About)
	}
	resJSON, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	b := append([]byte(Format), '\n')
	b = binary.AppendUvarint(b, uint64(len(out.Inputs)))
	for _, in := range out.Inputs {
		b = appendStrings(b, in.Op, in.Path, in.Digest)
	}
	b = binary.AppendUvarint(b, uint64(len(out.Objects)))
	for _, o := range out.Objects {
		b = appendStrings(b, o.APIVersion, o.Kind, o.Name, o.Namespace)
		b = appendOrigin(b, o.Origin)
		doc, err := wiredoc.Append(nil, o.Doc)
		if err != nil {
			return nil, err
		}
		b = appendBytes(b, doc)
	}
	b = appendBytes(b, resJSON)
	b = appendList(b, out.Covered)
	b = appendList(b, out.Dropped)
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b)), nil
}

func appendStrings(b []byte, ss ...string) []byte {
	for _, s := range ss {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	return b
}

func appendBytes(b, data []byte) []byte {
	return append(binary.AppendUvarint(b, uint64(len(data))), data...)
}

// appendPresent writes what comes before a list or map that may be nil:
// 0 for nil, else its length plus one (entryReader.present).
func appendPresent(b []byte, isNil bool, n int) []byte {
	if isNil {
		return binary.AppendUvarint(b, 0)
	}
	return binary.AppendUvarint(b, uint64(n)+1)
}

func appendList(b []byte, ss []string) []byte {
	return appendStrings(appendPresent(b, ss == nil, len(ss)), ss...)
}

func appendOrigin(b []byte, o object.Origin) []byte {
	b = appendStrings(b, o.Source, string(o.SourceType), o.File, o.Via)
	b = binary.AppendVarint(b, int64(o.Line))
	b = appendBool(b, o.Partial)
	b = appendPresent(b, o.AnnotationLines == nil, len(o.AnnotationLines))
	for k, line := range o.AnnotationLines {
		b = binary.AppendVarint(appendStrings(b, k), int64(line))
	}
	b = appendPresent(b, o.Chain == nil, len(o.Chain))
	for _, l := range o.Chain {
		b = binary.AppendVarint(appendStrings(b, l.File, l.Kind, l.Namespace, l.Name), int64(l.Line))
	}
	return b
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

// Read reads the entry file at p and decodes its header; false when it
// cannot be read, is of another format, or is damaged.
func Read(p string) (*Stored, bool) {
	// A regular file only, not through a symlink: a cache restored from
	// another run may hold a FIFO, or a link to /dev/zero, in its place.
	f, fi, err := safefile.Open(p, false)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if fi.Size() > maxEntryBytes || fi.Size() < int64(len(Format))+5 {
		return nil, false
	}
	// Read into a string, summing all but the checksum as it arrives: the
	// decoded strings are cut from it, and a Builder's string is its
	// buffer, not a copy.
	text, sum, err := cachefile.ReadString(f, fi.Size(), 4)
	if err != nil {
		return nil, false
	}
	return Parse(text, sum)
}

// Parse is Read on the file's contents, whose bytes before the checksum
// sum to sum.
func Parse(file string, sum uint32) (*Stored, bool) {
	if len(file) < len(Format)+5 || file[:len(Format)+1] != Format+"\n" {
		return nil, false
	}
	n := len(file) - 4
	if uint32(file[n])|uint32(file[n+1])<<8|uint32(file[n+2])<<16|uint32(file[n+3])<<24 != sum {
		return nil, false
	}
	r := entryReader{s: file[:n], i: len(Format) + 1}
	count := r.count(3)
	inputs := make([]Input, 0, count)
	for range count {
		inputs = append(inputs, Input{Op: r.str(), Path: r.str(), Digest: r.str()})
	}
	if r.bad {
		return nil, false
	}
	return &Stored{text: r.s, inputs: inputs, body: r.i}, true
}

// sharedBody is Decode, once per entry however many builds load it:
// a diff's head and base load the same entries for every source the pull
// request leaves alone (sharedEntry), and decoding was a fifth of a warm
// diff's own CPU. Each caller gets slices of its own (a build filters its
// objects in place); the documents, origins and findings' contents are
// shared and read-only: what writes into a delivered object's document
// copies the maps it writes into first (setDefaultNamespace,
// setCommonMetadata), and substitution replaces an object whole.
func (e *Stored) sharedBody() (Entry, bool) {
	e.decodeOnce.Do(func() { e.decoded, e.decodedOK = e.Decode() })
	if !e.decodedOK {
		return Entry{}, false
	}
	out := e.decoded
	out.Objects = slices.Clone(out.Objects)
	out.Covered = slices.Clone(out.Covered)
	out.Dropped = slices.Clone(out.Dropped)
	out.Result.Findings = slices.Clone(out.Result.Findings)
	return out, true
}

// Decode decodes the whole entry Read read (its inputs, objects and
// result); false when the body is damaged.
func (e *Stored) Decode() (Entry, bool) {
	r := entryReader{s: e.text, i: e.body}
	out := Entry{Inputs: e.inputs}
	count := r.count(9)
	out.Objects = make([]object.Object, 0, count)
	for range count {
		o := object.Object{APIVersion: r.str(), Kind: r.str(), Name: r.str(), Namespace: r.str()}
		o.Origin = r.origin()
		start, end := r.span()
		if r.bad {
			return Entry{}, false
		}
		doc, err := wiredoc.DecodeString(r.s[start:end])
		if o.Doc, _ = doc.(map[string]any); err != nil || o.Doc == nil {
			return Entry{}, false
		}
		out.Objects = append(out.Objects, o)
	}
	start, end := r.span()
	out.Covered, out.Dropped = r.list(), r.list()
	if r.bad || r.i != len(r.s) {
		return Entry{}, false
	}
	var res entryResult
	if json.Unmarshal([]byte(r.s[start:end]), &res) != nil || len(res.FindingSources) != len(res.Findings) || len(res.FindingCauses) != len(res.Findings) || len(res.FindingAbouts) != len(res.Findings) {
		return Entry{}, false
	}
	out.Result = res.SourceResult
	out.Result.Untraced = res.Untraced
	for i := range out.Result.Findings {
		f := &out.Result.Findings[i]
		f.Source, f.Cause, f.About = res.FindingSources[i], res.FindingCauses[i], res.FindingAbouts[i]
	}
	return out, true
}

// entryReader reads an entry from i; the decoded strings are substrings
// of s. The first malformed field sets bad, and everything after reads as
// zero.
type entryReader struct {
	s   string
	i   int
	bad bool
}

func (r *entryReader) uvarint() uint64 { return readNumber(r, wiredoc.Uvarint) }
func (r *entryReader) varint() int64   { return readNumber(r, wiredoc.Varint) }

// readNumber reads one number with read (wiredoc.Uvarint or Varint).
func readNumber[T uint64 | int64](r *entryReader, read func(string) (T, int)) T {
	if r.bad {
		return 0
	}
	v, k := read(r.s[r.i:])
	if k <= 0 {
		r.bad = true
		return 0
	}
	r.i += k
	return v
}

// count reads a number of elements that each take at least min bytes.
func (r *entryReader) count(min int) int {
	n := r.uvarint()
	if n > uint64(len(r.s)-r.i)/uint64(min) {
		r.bad = true
		return 0
	}
	return int(n)
}

// span reads a length-prefixed field and returns where its bytes are.
func (r *entryReader) span() (start, end int) {
	n := r.uvarint()
	if n > uint64(len(r.s)-r.i) {
		r.bad = true
		return r.i, r.i
	}
	start = r.i
	r.i += int(n)
	return start, r.i
}

func (r *entryReader) str() string {
	start, end := r.span()
	return r.s[start:end]
}

func (r *entryReader) boolean() bool {
	if r.bad || r.i >= len(r.s) || r.s[r.i] > 1 {
		r.bad = true
		return false
	}
	r.i++
	return r.s[r.i-1] == 1
}

// list reads what appendList wrote.
func (r *entryReader) list() []string {
	n, ok := r.present(1)
	if !ok {
		return nil
	}
	out := make([]string, 0, n)
	for range n {
		out = append(out, r.str())
	}
	return out
}

// present reads what appendPresent wrote, each element taking at least
// min bytes; false for nil.
func (r *entryReader) present(min int) (n int, ok bool) {
	v := r.uvarint()
	if v == 0 {
		return 0, false
	}
	if v-1 > uint64(len(r.s)-r.i)/uint64(min) {
		r.bad = true
		return 0, false
	}
	return int(v - 1), true
}

func (r *entryReader) origin() object.Origin {
	o := object.Origin{Source: r.str(), SourceType: object.SourceType(r.str()), File: r.str(), Via: r.str()}
	o.Line = int(r.varint())
	o.Partial = r.boolean()
	if n, ok := r.present(2); ok {
		o.AnnotationLines = make(map[string]int, n)
		for range n {
			k := r.str()
			o.AnnotationLines[k] = int(r.varint())
		}
	}
	if n, ok := r.present(5); ok {
		o.Chain = make([]check.Link, 0, n)
		for range n {
			l := check.Link{File: r.str(), Kind: r.str(), Namespace: r.str(), Name: r.str()}
			l.Line = int(r.varint())
			o.Chain = append(o.Chain, l)
		}
	}
	return o
}

// readEntries are the entry files the process has read while a render
// cache is open, by path, and the listings of the keys' directories it
// has read: a diff's head and base look up the same keys and check the
// same entries for every source the pull request leaves alone, and the
// second reads the first's copy (an entry is never rewritten under its
// name with other inputs; the slices of a decoded body are each caller's
// own, sharedBody). They go when the last open cache closes; a key's
// listing goes when the process stores an entry under it.
var readEntries = struct {
	sync.Mutex
	open     int
	byPath   map[string]*readOnce
	listings map[string]*listOnce
}{byPath: map[string]*readOnce{}, listings: map[string]*listOnce{}}

type readOnce struct {
	once  sync.Once
	entry *Stored
	ok    bool
}

type listOnce struct {
	once  sync.Once
	names []string
}

// sharedListing is the names in a key's directory (none when it cannot be
// read), listed once for the process's open caches.
func sharedListing(dir string) []string {
	l := slot(readEntries.listings, dir)
	l.once.Do(func() {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			l.names = append(l.names, e.Name())
		}
	})
	return l.names
}

// slot is m's value at key, made when missing, under readEntries' lock
// (m is one of its maps).
func slot[T any](m map[string]*T, key string) *T {
	readEntries.Lock()
	defer readEntries.Unlock()
	v := m[key]
	if v == nil {
		v = new(T)
		m[key] = v
	}
	return v
}

// forgetListing drops a key's listing after an entry was stored under it.
func forgetListing(dir string) {
	readEntries.Lock()
	delete(readEntries.listings, dir)
	readEntries.Unlock()
}

// sharedEntry is Read of p, once for the process's open caches.
func sharedEntry(p string) (*Stored, bool) {
	r := slot(readEntries.byPath, p)
	r.once.Do(func() { r.entry, r.ok = Read(p) })
	return r.entry, r.ok
}

// openEntries and closeEntries bracket a render cache's life.
func openEntries() {
	readEntries.Lock()
	readEntries.open++
	readEntries.Unlock()
}

func closeEntries() {
	readEntries.Lock()
	if readEntries.open--; readEntries.open == 0 {
		clear(readEntries.byPath)
		clear(readEntries.listings)
	}
	readEntries.Unlock()
}
