package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/capreport/capreport/contract"
)

// MaxWorkloadBytes bounds one workload's text. capreport writes some
// 20 KB a workload (its timelines down-sampled); the validator holds a
// workload parsed, some 24 bytes a byte of numbers, on each of its
// goroutines, so one workload of 200 MB would take gigabytes.
const MaxWorkloadBytes = 1 << 20

// maxScanWorkers bounds the workloads in flight, each parsed for the
// validator (up to some 25 MB at MaxWorkloadBytes).
const maxScanWorkers = 4

// Scanned is what Scan read of a report document.
type Scanned struct {
	// Fields are the top-level fields but the workloads, as written; nil
	// when the document is not a JSON object.
	Fields map[string]json.RawMessage
	// Workloads is how many workloads the list held; -1 when the document
	// has no list of workloads (absent, null, or another type).
	Workloads int
	// Violations is the schema's verdict (nil without a validator): the
	// producer fields' error, or a *ViolationsError wrapped.
	Violations error
	// Failed is the first error, by workload index, of the function Scan
	// handed each workload to; or the error of workloads that are neither
	// a list nor null.
	Failed error
}

// Scan reads a JSON report document from r a workload at a time, so that
// memory holds the workloads in flight and the other fields, never the
// document: a report is read a few times its size at most by the
// validator, and a 256 MiB artifact took 1.4 GB read whole. Each
// workload's text is checked against the schema's Workload definition
// (v not nil) and handed to each (when not nil; once a workload has
// failed the check, the document's Violations will not be nil, and the
// later ones are not), on up to four (GOMAXPROCS at most)
// goroutines at once: each must be safe for that, and it may keep what it
// decodes, not raw; a workload over MaxWorkloadBytes is an error. The
// rest of the document is checked against the
// schema with an empty list of workloads in their place, as Validate
// does.
//
// The error is the document's syntax: r is not one JSON value. Keys are
// matched as encoding/json matches them: a "Workloads" key is read as the
// workloads too (the schema then refuses the key by its spelling), and a
// later key replaces an earlier one.
func Scan(r io.Reader, v *Validator, each func(i int, raw []byte) error) (*Scanned, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	first, err := firstByte(br)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(br)
	dec.UseNumber()
	if first != '{' {
		return scanOther(dec, br, v)
	}
	s := &Scanned{Fields: map[string]json.RawMessage{}, Workloads: -1}
	top := map[string]any{}
	var items *workloadPool
	defer func() { items.wait() }() // on a syntax error, the workers still running
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		if !strings.EqualFold(key, "workloads") {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, err
			}
			s.Fields[key] = raw
			continue
		}
		items.wait() // a later list replaces an earlier one
		items = newWorkloadPool(v, key == "workloads", each)
		if top[key], err = s.scanWorkloads(dec, items); err != nil {
			return nil, err
		}
	}
	items.wait()
	if _, err := dec.Token(); err != nil { // the object's '}'
		return nil, err
	}
	if err := endOfDocument(dec, br); err != nil {
		return nil, err
	}
	if items != nil {
		s.Failed = items.failed()
	}
	if v != nil {
		s.Violations = v.checkTop(s.Fields, top, items)
	}
	return s, nil
}

// firstByte is the document's first byte after white space, unread.
func firstByte(br *bufio.Reader) (byte, error) {
	for {
		c, err := br.ReadByte()
		if err == io.EOF {
			return 0, errors.New("unexpected end of JSON input")
		}
		if err != nil {
			return 0, err
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return c, br.UnreadByte()
		}
	}
}

// endOfDocument holds the document to one JSON value, as json.Unmarshal
// does: nothing but white space after it. It reads the rest itself, since
// json.Decoder keeps in its buffer every space it skips to the next
// token (130 MiB of them took 440 MB).
func endOfDocument(dec *json.Decoder, br io.Reader) error {
	rest := bufio.NewReader(io.MultiReader(dec.Buffered(), br))
	for {
		c, err := rest.ReadByte()
		switch {
		case err == io.EOF:
			return nil
		case err != nil:
			return err
		case c != ' ' && c != '\t' && c != '\n' && c != '\r':
			return fmt.Errorf("invalid character %q after top-level value", c)
		}
	}
}

// scanOther reads a document that is not an object: no report, so the
// schema names what it is, given a validator.
func scanOther(dec *json.Decoder, br io.Reader, v *Validator) (*Scanned, error) {
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, err
	}
	if err := endOfDocument(dec, br); err != nil {
		return nil, err
	}
	s := &Scanned{Workloads: -1, Failed: errors.New("not a JSON object")}
	if v != nil {
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			return nil, err
		}
		s.Violations = v.violations(v.schema.Validate(inst), nil)
	}
	return s, nil
}

// scanWorkloads reads the workloads' value, handing a list's items to the
// pool; what it returns stands for the value in the top-level check: an
// empty list for a list, a value of the same JSON type for any other.
func (s *Scanned) scanWorkloads(dec *json.Decoder, items *workloadPool) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('['):
		s.Workloads = 0
		for dec.More() {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, err
			}
			if len(raw) > MaxWorkloadBytes {
				return nil, fmt.Errorf("workload %d is %d bytes, more than the %d capreport reads of one (it writes some 20 KB)", s.Workloads, len(raw), MaxWorkloadBytes)
			}
			items.add(s.Workloads, raw)
			s.Workloads++
		}
		_, err := dec.Token()
		return []any{}, err
	case json.Delim('{'):
		s.Workloads = -1
		items.fail(errors.New("workloads is an object, not a list"))
		return map[string]any{}, skipObject(dec)
	case nil:
		s.Workloads = -1
		return nil, nil
	default:
		s.Workloads = -1
		items.fail(fmt.Errorf("workloads is %T, not a list", tok))
		return tok, nil
	}
}

// skipObject reads up to the end of the object whose '{' was just read.
func skipObject(dec *json.Decoder) error {
	for depth := 1; depth > 0; {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
	return nil
}

// checkTop validates the document but its workloads (stood for by top's
// values) and gathers the workloads' violations after the top level's,
// as a whole document's validation would list them.
func (v *Validator) checkTop(fields map[string]json.RawMessage, top map[string]any, items *workloadPool) error {
	for k, raw := range fields {
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			return err
		}
		top[k] = inst
	}
	// The producer fields first: their error names the field, where the
	// schema's pattern violation would only be counted.
	if err := v.checkProducer(top); err != nil {
		return err
	}
	found := &ViolationsError{}
	found.add(v.schema.Validate(top), nil)
	if items != nil {
		items.violations(found)
	}
	if found.err == nil {
		return nil
	}
	return fmt.Errorf("report does not match %s: %w", contract.SchemaVersion, found)
}

// workloadPool validates and hands on the workloads of one list on up to
// maxScanWorkers goroutines, keeping the first violations by index and the
// first error of each.
type workloadPool struct {
	v        *Validator // nil, or the key was not spelt "workloads": no Workload check
	each     func(int, []byte) error
	jobs     chan workloadJob
	done     sync.WaitGroup
	mu       sync.Mutex
	found    []itemViolations // sorted by index, within maxListedViolations leaves
	dropped  int              // violations beyond those
	firstErr error
	errAt    int // the workload firstErr is of; -1 for the list
	// broken is set once a workload violates the schema: the document
	// will be refused, so no later workload is handed to each, which may
	// keep what it decodes (a report of 240 MB of broken workloads was
	// decoded whole, 0.85 GB, before it was refused).
	broken atomic.Bool
}

type workloadJob struct {
	i   int
	raw []byte
}

// itemViolations are one workload's violations, as listed and counted.
type itemViolations struct {
	i     int
	found *ViolationsError
}

func newWorkloadPool(v *Validator, check bool, each func(int, []byte) error) *workloadPool {
	p := &workloadPool{each: each}
	if check {
		p.v = v
	}
	n := min(runtime.GOMAXPROCS(0), maxScanWorkers)
	jobs := make(chan workloadJob, n)
	p.jobs = jobs
	for range n {
		p.done.Go(func() {
			for j := range jobs {
				p.run(j)
			}
		})
	}
	return p
}

func (p *workloadPool) add(i int, raw []byte) { p.jobs <- workloadJob{i, raw} }

// wait lets the workers finish; a nil pool has none.
func (p *workloadPool) wait() {
	if p == nil || p.jobs == nil {
		return
	}
	close(p.jobs)
	p.jobs = nil
	p.done.Wait()
}

func (p *workloadPool) run(j workloadJob) {
	if p.v != nil {
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(j.raw))
		if err != nil { // the decoder read it whole: cannot happen
			p.setErr(j.i, err)
			return
		}
		if !p.v.keepNumbers {
			elideNumbers(p.v.workload, inst)
		}
		found := &ViolationsError{}
		found.add(p.v.workload.Validate(inst), []string{"workloads", strconv.Itoa(j.i)})
		if found.err != nil {
			p.broken.Store(true)
			p.keep(itemViolations{j.i, found})
		}
	}
	if p.each != nil && !p.broken.Load() {
		if err := p.each(j.i, j.raw); err != nil {
			p.setErr(j.i, err)
		}
	}
}

// keep inserts one workload's violations in index order and drops those
// that fall beyond the listed ones, counting them: a report of 140,000
// broken workloads is held to a few.
func (p *workloadPool) keep(item itemViolations) {
	p.mu.Lock()
	defer p.mu.Unlock()
	at, _ := slices.BinarySearchFunc(p.found, item.i, func(a itemViolations, i int) int { return a.i - i })
	p.found = slices.Insert(p.found, at, item)
	listed := 0
	for k, it := range p.found {
		if listed >= maxListedViolations {
			for _, gone := range p.found[k:] {
				p.dropped += len(gone.found.Listed) + gone.found.More
			}
			p.found = p.found[:k]
			break
		}
		listed += len(it.found.Listed)
	}
}

func (p *workloadPool) setErr(i int, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.firstErr == nil || i < p.errAt {
		p.firstErr, p.errAt = err, i
	}
}

// fail records an error of the list as a whole.
func (p *workloadPool) fail(err error) { p.setErr(-1, err) }

func (p *workloadPool) failed() error { return p.firstErr }

// violations adds the kept violations to found in index order.
func (p *workloadPool) violations(found *ViolationsError) {
	for _, it := range p.found {
		for _, l := range it.found.Listed {
			if len(found.Listed) < maxListedViolations {
				found.Listed = append(found.Listed, l)
			} else {
				found.More++
			}
		}
		found.More += it.found.More
		if found.err == nil {
			found.err = it.found.err
		}
	}
	found.More += p.dropped
}

// Validate checks a JSON report document against the schema, and its
// producer fields against their patterns (checkProducer); the error names
// the failing instance locations, the first maxListedViolations of them.
//
// The workloads are validated one at a time against the schema's Workload
// definition, the rest of the document with an empty list in their place
// (Scan): the validator holds a parsed document and allocates as it walks
// it, about 20 bytes of memory per byte of report when the document is
// checked whole (two 35 MB reports took 1.1 GB to merge). What is found
// is the same: the schema asks nothing of one workload that depends on
// another.
func (v *Validator) Validate(doc []byte) error {
	s, err := Scan(bytes.NewReader(doc), v, nil)
	if err != nil {
		return fmt.Errorf("report is not JSON: %w", err)
	}
	return s.Violations
}
