package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"strings"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/contract"
)

// SARIF 2.1.0 constants. The $schema value names the OASIS schema; nothing
// fetches it (testdata/sarif holds a copy the tests validate against).
const (
	sarifVersion = "2.1.0"
	sarifSchema  = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	sarifTool    = "capreport"
)

// SARIFOptions tunes the SARIF log.
type SARIFOptions struct {
	// ToolVersion is tool.driver.version; default the report's Tool.Version.
	ToolVersion string
	// BaseDir is prefixed to every artifact path. Code scanning resolves
	// URIs from the repository root, while the report's paths are relative
	// to the scanned directory: set BaseDir to that directory (relative to
	// the repository root) when it is not the root.
	BaseDir string
}

// SARIF renders the report's findings as a SARIF 2.1.0 log with one run:
// the driver "capreport" with the metadata of every registered check
// (check.All) as its rules, and one result per finding, workload findings
// in report order and then the report's own.
//
// Every result has a physical location with a file and a line ≥ 1, which
// code scanning needs to show it: a finding's own location; else its
// workload's source (the HPA or ScaledObject file, for Helm the template);
// a location without a line takes the source line when it is in the
// source file, else line 1. A report-level finding with no location points
// at line 1 of the scanned root. Ignored findings are kept with an
// in-source suppression whose justification is the ignore reason, so code
// scanning lists them as dismissed rather than losing them.
func SARIF(r contract.Report, opts SARIFOptions) ([]byte, error) {
	version := opts.ToolVersion
	if version == "" {
		version = r.Tool.Version
	}
	driver := sarifDriver{Name: sarifTool, Version: version}
	index := map[string]int{}
	addRule := func(d sarifRule) {
		index[d.ID] = len(driver.Rules)
		driver.Rules = append(driver.Rules, d)
	}
	for _, c := range check.All() {
		addRule(ruleOf(c))
	}

	results := []sarifResult{}
	emit := func(f contract.Finding, w *contract.Workload) {
		if _, ok := index[f.Check]; !ok {
			// A check the registry does not know yet (a renderer's own
			// finding kind): describe it by its id so ruleIndex holds.
			addRule(sarifRule{
				ID:                   f.Check,
				ShortDescription:     &sarifText{Text: f.Check},
				DefaultConfiguration: &sarifConfig{Level: sarifLevel(f.Severity)},
			})
		}
		results = append(results, resultOf(f, w, r.Root, opts.BaseDir, index[f.Check]))
	}
	for i := range r.Workloads {
		w := &r.Workloads[i]
		for _, f := range w.Findings {
			emit(f, w)
		}
	}
	for _, f := range r.Findings {
		emit(f, nil)
	}

	log := sarifLog{
		Schema:  sarifSchema,
		Version: sarifVersion,
		Runs:    []sarifRun{{Tool: sarifToolObj{Driver: driver}, Results: results}},
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // messages quote manifests; keep them readable
	enc.SetIndent("", "  ")
	if err := enc.Encode(log); err != nil {
		return nil, fmt.Errorf("marshal sarif: %w", err)
	}
	return buf.Bytes(), nil
}

// ruleOf is the reporting descriptor of a registered check.
func ruleOf(c check.Info) sarifRule {
	help := c.Description
	if c.Remediation != "" {
		help += "\n\nRemediation: " + c.Remediation
	}
	d := sarifRule{
		ID:                   c.ID,
		DefaultConfiguration: &sarifConfig{Level: sarifLevel(c.Severity)},
		Help:                 &sarifText{Text: help},
	}
	if c.Title != "" {
		d.ShortDescription = &sarifText{Text: c.Title}
	}
	if c.Description != "" {
		d.FullDescription = &sarifText{Text: c.Description}
	}
	return d
}

// resultOf is one finding's result; w is nil for a report-level finding.
func resultOf(f contract.Finding, w *contract.Workload, root, baseDir string, ruleIndex int) sarifResult {
	file, line := findingPlace(f, w, root)
	msg := f.Message
	if msg == "" {
		msg = f.Check
	}
	if f.Remediation != "" {
		msg += "\n\nRemediation: " + f.Remediation
	}
	if len(f.RestsOn) > 0 {
		msg += "\n\nRests on: " + RestsOnText(f)
	}
	loc := sarifLocation{PhysicalLocation: sarifPhysical{
		ArtifactLocation: sarifArtifact{URI: artifactURI(baseDir, file)},
		Region:           sarifRegion{StartLine: line},
	}}
	if w != nil {
		loc.LogicalLocations = []sarifLogical{{FullyQualifiedName: w.ID, Kind: "resource"}}
	}
	res := sarifResult{
		RuleID:    f.Check,
		RuleIndex: ruleIndex,
		Level:     sarifLevel(f.Severity),
		Message:   sarifText{Text: msg},
		Locations: []sarifLocation{loc},
	}
	if f.Ignored {
		res.Suppressions = []sarifSuppression{{Kind: "inSource", Justification: f.IgnoreReason}}
	}
	return res
}

// findingPlace picks the file and line of a finding (see SARIF).
func findingPlace(f contract.Finding, w *contract.Workload, root string) (string, int) {
	var src contract.Location
	if w != nil {
		src = w.Source
	}
	file, line := src.File, src.Line
	if f.Location != nil && f.Location.File != "" {
		file, line = f.Location.File, f.Location.Line
		if line < 1 && file == src.File {
			line = src.Line
		}
	} else if f.Location != nil && f.Location.Line >= 1 && src.File != "" {
		line = f.Location.Line // a line with no file is in the source file
	}
	if file == "" {
		file, line = root, 1
		if file == "" {
			file = "."
		}
	}
	if line < 1 {
		line = 1
	}
	return file, line
}

// artifactURI turns a report path into a relative URI reference: forward
// slashes, no "./", and characters outside a URI path percent-encoded.
func artifactURI(baseDir, file string) string {
	p := strings.ReplaceAll(file, `\`, "/")
	if baseDir != "" && !path.IsAbs(p) {
		p = path.Join(strings.ReplaceAll(baseDir, `\`, "/"), p)
	}
	p = path.Clean(p)
	// String, not EscapedPath: it also writes "./k:v" for a first segment
	// with a colon, which would otherwise read as a scheme.
	return (&url.URL{Path: p}).String()
}

// sarifLevel maps a capreport severity onto a SARIF level.
func sarifLevel(severity string) string {
	switch severity {
	case check.SeverityError:
		return "error"
	case check.SeverityWarning:
		return "warning"
	case check.SeverityInfo:
		return "note"
	}
	return "warning"
}

// The subset of SARIF 2.1.0 that capreport writes.
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool    sarifToolObj  `json:"tool"`
		Results []sarifResult `json:"results"`
	}
	sarifToolObj struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name    string      `json:"name"`
		Version string      `json:"version,omitempty"`
		Rules   []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID                   string       `json:"id"`
		ShortDescription     *sarifText   `json:"shortDescription,omitempty"`
		FullDescription      *sarifText   `json:"fullDescription,omitempty"`
		Help                 *sarifText   `json:"help,omitempty"`
		DefaultConfiguration *sarifConfig `json:"defaultConfiguration,omitempty"`
	}
	sarifConfig struct {
		Level string `json:"level"`
	}
	sarifText struct {
		Text string `json:"text"`
	}
	sarifResult struct {
		RuleID       string             `json:"ruleId"`
		RuleIndex    int                `json:"ruleIndex"`
		Level        string             `json:"level"`
		Message      sarifText          `json:"message"`
		Locations    []sarifLocation    `json:"locations"`
		Suppressions []sarifSuppression `json:"suppressions,omitempty"`
	}
	sarifLocation struct {
		PhysicalLocation sarifPhysical  `json:"physicalLocation"`
		LogicalLocations []sarifLogical `json:"logicalLocations,omitempty"`
	}
	sarifPhysical struct {
		ArtifactLocation sarifArtifact `json:"artifactLocation"`
		Region           sarifRegion   `json:"region"`
	}
	sarifArtifact struct {
		URI string `json:"uri"`
	}
	sarifRegion struct {
		StartLine int `json:"startLine"`
	}
	sarifLogical struct {
		FullyQualifiedName string `json:"fullyQualifiedName"`
		Kind               string `json:"kind,omitempty"`
	}
	sarifSuppression struct {
		Kind          string `json:"kind"`
		Justification string `json:"justification,omitempty"`
	}
)
