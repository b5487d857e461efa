package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/capreport/capreport/contract"
)

// JSON renders the report contract with a trailing newline: compact, or
// indented by two spaces with o.Pretty. Compact is the default because the
// report is read by programs (diff, merge, summary, the second stage of
// the fork-safe workflow) and carries every timeline: indented, it is about
// 3.5 times larger (some 50 KB per autoscaler against 15 KB), which is what
// made a large repository's report exceed --max-report-bytes. It marshals
// what it is given (the caller sorts workloads by id) except that nil
// lists and maps are written as [] and {}: consumers (jq, the schema,
// `capreport diff`) then never meet null where a list is promised.
func JSON(r contract.Report, o Options) ([]byte, error) {
	var b bytes.Buffer
	if err := WriteJSON(&b, r, o); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// workloadsKey is how json.Marshal writes an empty list of workloads: the
// one place in a report's text where these bytes can stand, since a
// string's quotes are escaped and only the top level has this key.
var workloadsKey = map[bool][]byte{false: []byte(`"workloads":[]`), true: []byte(`"workloads": []`)}

// WriteJSON writes what JSON renders to w, the workloads one at a time:
// the text of a 256 MiB report is never held whole (merge wrote one in
// 1.9 GB), and the bytes are json.Marshal's (TestWriteJSONIsMarshal).
func WriteJSON(w io.Writer, r contract.Report, o Options) error {
	r = normalize(r)
	ws := r.Workloads
	r.Workloads = []contract.Workload{}
	frame, err := marshal(r, o.Pretty, "")
	if err != nil {
		return fmt.Errorf("marshal report: %w", err)
	}
	at := bytes.Index(frame, workloadsKey[o.Pretty])
	if at < 0 {
		return fmt.Errorf("marshal report: no list of workloads in %.80q", frame)
	}
	open := at + len(workloadsKey[o.Pretty]) - 1 // the ']' of the empty list
	if _, err := w.Write(frame[:open]); err != nil {
		return err
	}
	for i, wl := range ws {
		sep := ","
		if i == 0 {
			sep = ""
		}
		if o.Pretty {
			sep += "\n    "
		}
		b, err := marshal(wl, o.Pretty, "    ")
		if err != nil {
			return fmt.Errorf("marshal report: %w", err)
		}
		if _, err := io.WriteString(w, sep); err != nil {
			return err
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	if o.Pretty && len(ws) > 0 {
		if _, err := io.WriteString(w, "\n  "); err != nil {
			return err
		}
	}
	if _, err := w.Write(frame[open:]); err != nil {
		return err
	}
	_, err = io.WriteString(w, "\n")
	return err
}

// marshal is json.Marshal, or json.MarshalIndent by two spaces after
// prefix with pretty.
func marshal(v any, pretty bool, prefix string) ([]byte, error) {
	if pretty {
		return json.MarshalIndent(v, prefix, "  ")
	}
	return json.Marshal(v)
}

// normalize replaces nil lists and maps with empty ones on a copy.
func normalize(r contract.Report) contract.Report {
	r.Workloads = nonNil(r.Workloads)
	r.Sources = nonNil(r.Sources)
	r.Findings = nonNil(r.Findings)
	ws := make([]contract.Workload, len(r.Workloads))
	for i, w := range r.Workloads {
		w.Metrics = nonNil(w.Metrics)
		w.Findings = nonNil(w.Findings)
		if w.Assumptions == nil {
			w.Assumptions = map[string]contract.Assumption{}
		}
		if w.Size != nil {
			s := *w.Size
			s.Overloads = nonNil(s.Overloads)
			ol := make([]contract.SizeOverload, len(s.Overloads))
			for j, o := range s.Overloads {
				o.ScaleEvents = nonNil(o.ScaleEvents)
				ol[j] = o
			}
			s.Overloads = ol
			w.Size = &s
		}
		ws[i] = w
	}
	r.Workloads = ws
	return r
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
