// Package artifact reads a saved JSON report that anyone may have written:
// in the fork-safe workflow the comment job reads report.json from the
// artifact of a pull request's code. Read holds it to this capreport's
// schema version and, given a validator, to the schema (the tool's fields
// to their patterns), and recomputes the summary from the workloads. What
// it returns renders inert: every string in it is escaped by the
// renderers. It reads only the contract, so the fuzz targets that hold it
// to that run without the pipeline linked.
package artifact

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"sync"

	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/report"
)

// Decode is Read of a document held in memory.
func Decode(name string, b []byte, v *report.Validator) (*contract.Report, error) {
	return Read(name, bytes.NewReader(b), v)
}

// Read is ReadWithin with no bound on the decoded report.
func Read(name string, r io.Reader, v *report.Validator) (*contract.Report, error) {
	return ReadWithin(name, r, v, 0)
}

// ReadWithin reads a report from r, named name: its schemaVersion must be this
// capreport's, v (when not nil) validates it, and the summary is
// recomputed from the workloads, never taken from the file: an artifact
// can claim "3 pass" over failing rows, and the headline is the one line
// every body keeps. Every error starts with name and says what to do.
//
// The document is read a workload at a time (report.Scan): what stays in
// memory is the decoded report, never its text. A report capreport wrote
// decodes to about 1.5 times its text; one written to inflate (lists of
// one-digit numbers, 8 bytes each decoded) to 4 times or more, so the
// workloads' decoded size is held to maxDecoded bytes (0: no bound).
func ReadWithin(name string, r io.Reader, v *report.Validator, maxDecoded int64) (*contract.Report, error) {
	ws := workloads{max: maxDecoded}
	s, err := report.Scan(r, v, ws.decode)
	if err != nil {
		return nil, fmt.Errorf("%s: not a capreport JSON report: %v", name, err)
	}
	top, err := json.Marshal(s.Fields)
	if err != nil || s.Fields == nil {
		return nil, fmt.Errorf("%s: not a capreport JSON report: %v", name, s.Failed)
	}
	if err := checkVersion(name, top); err != nil {
		return nil, err
	}
	if s.Violations != nil {
		return nil, fmt.Errorf("%s: does not match the capreport report schema: %v", name, s.Violations)
	}
	var rep contract.Report
	if err := json.Unmarshal(top, &rep); err != nil {
		return nil, fmt.Errorf("%s: not a capreport JSON report: %v", name, err)
	}
	if s.Failed != nil {
		return nil, fmt.Errorf("%s: not a capreport JSON report: %v", name, s.Failed)
	}
	switch {
	case s.Workloads > 0:
		rep.Workloads = ws.list[:s.Workloads]
	case s.Workloads == 0: // [] stays an empty list, as json.Unmarshal leaves it
		rep.Workloads = []contract.Workload{}
	}
	rep.Summary = contract.Summarize(&rep)
	return &rep, nil
}

// checkVersion holds the document's schemaVersion to this capreport's.
func checkVersion(name string, top []byte) error {
	var probe struct {
		SchemaVersion *string `json:"schemaVersion"`
	}
	if err := json.Unmarshal(top, &probe); err != nil {
		return fmt.Errorf("%s: not a capreport JSON report: %v", name, err)
	}
	if probe.SchemaVersion == nil {
		return fmt.Errorf("%s: not a capreport JSON report: no schemaVersion", name)
	}
	if *probe.SchemaVersion != contract.SchemaVersion {
		return fmt.Errorf("%s: schemaVersion %q, this capreport reads %q; re-run the capreport that matches it",
			name, report.TerminalSafe(*probe.SchemaVersion), contract.SchemaVersion)
	}
	return nil
}

// workloads collects the workloads report.Scan hands over, from several
// goroutines, each at its index.
type workloads struct {
	mu   sync.Mutex
	list []contract.Workload
	max  int64 // bound on the decoded size; 0: none
	size int64 // decoded so far
}

func (ws *workloads) decode(i int, raw []byte) error {
	var w contract.Workload
	if err := json.Unmarshal(raw, &w); err != nil {
		return fmt.Errorf("workloads[%d]: %v", i, err)
	}
	size := decodedSize(reflect.ValueOf(w))
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.size += size; ws.max > 0 && ws.size > ws.max {
		return fmt.Errorf("its workloads take more than %d bytes decoded, where a report capreport wrote takes about 1.5 bytes a byte of its text", ws.max)
	}
	if i >= len(ws.list) {
		ws.list = append(ws.list, make([]contract.Workload, i+1-len(ws.list))...)
	}
	ws.list[i] = w
	return nil
}
