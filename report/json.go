package report

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/capreport/capreport/rules"
)

// schemaURL is the schema's $id; the compiler needs a name to register the
// embedded document under, and nothing is ever fetched from it.
const schemaURL = "https://capreport.io/schema/report.v1.json"

//go:embed schema/report.v1.json
var schemaV1 []byte

// Schema returns the JSON Schema (draft 2020-12) of the report contract
// rules.SchemaVersion.
func Schema() []byte { return bytes.Clone(schemaV1) }

// JSON renders the report contract, indented, with a trailing newline. It
// marshals what it is given (the caller sorts workloads by id) except that
// nil lists and maps are written as [] and {}: consumers (jq, the schema,
// `capreport diff`) then never meet null where a list is promised.
func JSON(r rules.Report, _ Options) ([]byte, error) {
	out, err := json.MarshalIndent(normalize(r), "", "  ")
	if err != nil {
		return nil, fmt.Errorf("marshal report: %w", err)
	}
	return append(out, '\n'), nil
}

// normalize replaces nil lists and maps with empty ones on a copy.
func normalize(r rules.Report) rules.Report {
	r.Workloads = nonNil(r.Workloads)
	r.Sources = nonNil(r.Sources)
	r.Findings = nonNil(r.Findings)
	ws := make([]rules.Workload, len(r.Workloads))
	for i, w := range r.Workloads {
		w.Metrics = nonNil(w.Metrics)
		w.Findings = nonNil(w.Findings)
		if w.Assumptions == nil {
			w.Assumptions = map[string]rules.Assumption{}
		}
		if w.Size != nil {
			s := *w.Size
			s.Overloads = nonNil(s.Overloads)
			ol := make([]rules.SizeOverload, len(s.Overloads))
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

// Validate checks a JSON report document against the embedded schema; the
// error names the failing instance locations.
func Validate(doc []byte) error {
	sch, err := compileSchema()
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return fmt.Errorf("report is not JSON: %w", err)
	}
	if err := sch.Validate(inst); err != nil {
		return fmt.Errorf("report does not match %s: %w", rules.SchemaVersion, err)
	}
	return nil
}

// compileSchema compiles the embedded schema. It is compiled per call
// rather than cached in a package variable: validation is rare (CLI input,
// tests) and the package keeps no global state.
func compileSchema() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaV1))
	if err != nil {
		return nil, fmt.Errorf("embedded schema is not JSON: %w", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, fmt.Errorf("embedded schema: %w", err)
	}
	sch, err := c.Compile(schemaURL)
	if err != nil {
		return nil, fmt.Errorf("embedded schema: %w", err)
	}
	return sch, nil
}
