// Package artifact reads a saved JSON report that anyone may have written:
// in the fork-safe workflow the comment job reads report.json from the
// artifact of a pull request's code. Decode holds it to this capreport's
// schema version and, given a validator, to the schema (the tool's fields
// to their patterns), and recomputes the summary from the workloads. What
// it returns renders inert: every string in it is escaped by the
// renderers. It reads only the contract, so the fuzz targets that hold it
// to that run without the pipeline linked.
package artifact

import (
	"encoding/json"
	"fmt"

	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/report"
)

// Decode decodes a report read from name: its schemaVersion must be this
// capreport's, v (when not nil) validates it first, and the summary is
// recomputed from the workloads, never taken from the file: an artifact
// can claim "3 pass" over failing rows, and the headline is the one line
// every body keeps. Every error starts with name and says what to do.
func Decode(name string, b []byte, v *report.Validator) (*contract.Report, error) {
	var probe struct {
		SchemaVersion *string `json:"schemaVersion"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return nil, fmt.Errorf("%s: not a capreport JSON report: %v", name, err)
	}
	if probe.SchemaVersion == nil {
		return nil, fmt.Errorf("%s: not a capreport JSON report: no schemaVersion", name)
	}
	if *probe.SchemaVersion != contract.SchemaVersion {
		return nil, fmt.Errorf("%s: schemaVersion %q, this capreport reads %q; re-run the capreport that matches it",
			name, report.TerminalSafe(*probe.SchemaVersion), contract.SchemaVersion)
	}
	if v != nil {
		if err := v.Validate(b); err != nil {
			return nil, fmt.Errorf("%s: does not match the capreport report schema: %v", name, err)
		}
	}
	var r contract.Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: not a capreport JSON report: %v", name, err)
	}
	r.Summary = contract.Summarize(&r)
	return &r, nil
}
