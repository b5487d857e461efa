package report

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/report/internal/safetext"
)

// schemaURL is the schema's $id; the compiler needs a name to register the
// embedded document under, and nothing is ever fetched from it.
const schemaURL = "https://capreport.io/schema/report.v1.json"

//go:embed schema/report.v1.json
var schemaV1 []byte

// Validator holds the compiled schema (draft 2020-12, report.v1.json) of
// contract.SchemaVersion. Compiling takes milliseconds, validating a small
// report microseconds, so a caller compiles once for all its documents
// (merge's inputs, the untrusted-report fuzz target).
type Validator struct {
	schema, workload      *jsonschema.Schema
	toolName, toolVersion *regexp.Regexp
	keepNumbers           bool // validate every number (tests: elideNumbers changes nothing)
}

// NewValidator compiles the embedded schema and the producer patterns.
func NewValidator() (*Validator, error) {
	sch, wl, err := compileSchema()
	if err != nil {
		return nil, err
	}
	return &Validator{schema: sch, workload: wl,
		toolName: regexp.MustCompile(ToolNamePattern), toolVersion: regexp.MustCompile(ToolVersionPattern)}, nil
}

// violations is the error of a whole document's validation.
func (v *Validator) violations(err error, at []string) error {
	if err == nil {
		return nil
	}
	found := &ViolationsError{}
	found.add(err, at)
	return fmt.Errorf("report does not match %s: %w", contract.SchemaVersion, found)
}

// Patterns of the report's producer fields (the tool and the time), which
// the comment's footer prints: a name and a version, nothing that Markdown
// or GitHub could turn into an image, a link, a mention or a reference.
// Either may be empty (a report built without a producer). JSON Schema's
// "pattern" (ECMA 262) reads them the same way.
const (
	ToolNamePattern    = `^([A-Za-z][A-Za-z0-9_-]{0,63})?$`
	ToolVersionPattern = `^([0-9A-Za-z][0-9A-Za-z.+_-]{0,63})?$`
)

// checkProducer holds tool.name and tool.version to their patterns and
// generatedAt to RFC 3339 (the schema's format, which a 2020-12 validator
// only annotates). It reads them off the parsed document, inst; a field
// of another type is left to the schema, which names its type.
func (v *Validator) checkProducer(inst any) error {
	doc, _ := inst.(map[string]any)
	tool, _ := doc["tool"].(map[string]any)
	for _, f := range []struct {
		field   string
		pattern *regexp.Regexp
	}{
		{"name", v.toolName},
		{"version", v.toolVersion},
	} {
		value, _ := tool[f.field].(string)
		if !f.pattern.MatchString(value) {
			return fmt.Errorf("report does not match %s: tool.%s %q does not match %s", contract.SchemaVersion, f.field, safetext.Terminal(safetext.Ellipsize(value, 80)), f.pattern)
		}
	}
	if at, ok := doc["generatedAt"].(string); ok {
		if _, err := time.Parse(time.RFC3339, at); err != nil {
			return fmt.Errorf("report does not match %s: generatedAt %q is not an RFC 3339 time", contract.SchemaVersion, safetext.Terminal(safetext.Ellipsize(at, 80)))
		}
	}
	return nil
}

// maxListedViolations bounds the schema violations one error lists: an
// artifact with 140,000 broken workloads must not write a line for each.
const maxListedViolations = 20

// ViolationsError lists the first schema violations of a report and counts
// the rest; it wraps the validator's error.
type ViolationsError struct {
	Listed []string // "at '/workloads/3/verdict': value must be one of …"
	More   int      // violations not listed
	err    error
}

func (e *ViolationsError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d violation(s)", len(e.Listed)+e.More)
	for _, l := range e.Listed {
		b.WriteString("\n- " + l)
	}
	if e.More > 0 {
		fmt.Fprintf(&b, "\n- … and %d more", e.More)
	}
	return b.String()
}

func (e *ViolationsError) Unwrap() error { return e.err }

// add lists the leaves of the validator's error tree (each one violation
// at one instance location, prefixed by at) up to maxListedViolations, and
// counts the rest.
func (e *ViolationsError) add(err error, at []string) {
	if err == nil {
		return
	}
	if e.err == nil {
		e.err = err
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		e.Listed = append(e.Listed, safetext.Terminal(safetext.Ellipsize(err.Error(), 300)))
		return
	}
	var walk func(*jsonschema.ValidationError)
	walk = func(v *jsonschema.ValidationError) {
		if len(v.Causes) == 0 {
			if len(e.Listed) < maxListedViolations {
				loc := append(slices.Clip(at), v.InstanceLocation...)
				leaf := &jsonschema.ValidationError{SchemaURL: v.SchemaURL, InstanceLocation: loc, ErrorKind: v.ErrorKind}
				e.Listed = append(e.Listed, safetext.Terminal(safetext.Ellipsize(leaf.Error(), 300)))
			} else {
				e.More++
			}
			return
		}
		for _, c := range v.Causes {
			walk(c)
		}
	}
	walk(ve)
}

// compileSchema compiles the embedded schema. It is compiled per call
// rather than cached in a package variable: validation is rare (CLI input,
// tests) and the package keeps no global state.
func compileSchema() (report, workload *jsonschema.Schema, err error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaV1))
	if err != nil {
		return nil, nil, fmt.Errorf("embedded schema is not JSON: %w", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, nil, fmt.Errorf("embedded schema: %w", err)
	}
	if report, err = c.Compile(schemaURL); err != nil {
		return nil, nil, fmt.Errorf("embedded schema: %w", err)
	}
	if workload, err = c.Compile(schemaURL + "#/$defs/Workload"); err != nil {
		return nil, nil, fmt.Errorf("embedded schema: %w", err)
	}
	return report, workload, nil
}
