package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/internal/testutil"
)

// sarifSchemaFile is the OASIS SARIF 2.1.0 schema (JSON Schema draft-07),
// committed so that validation needs no network.
const sarifSchemaFile = "testdata/sarif/sarif-schema-2.1.0.json"

func sarifInt(v int) *int { return &v }

// sarifReport has every kind of finding SARIF must place: with a full
// location, with a file but no line (in and out of the source file), with
// a line but no file, with no location, ignored with and without a reason,
// a check unknown to the registry, report-level findings with and without
// a location, and paths that need escaping.
func sarifReport() contract.Report {
	web := contract.Workload{
		ID:          "shop/HorizontalPodAutoscaler/web",
		Autoscaler:  contract.Ref{Kind: "HorizontalPodAutoscaler", Name: "web", Namespace: "shop"},
		Source:      contract.Location{File: "charts/web/templates/hpa.yaml", Line: 7, Source: "charts/web"},
		Signal:      "saturating",
		Verdict:     contract.VerdictFail,
		Assumptions: map[string]contract.Assumption{},
		Size:        &contract.SizeBill{GrowthFactor: 2, RoundSeconds: 120, HottestTarget: sarifInt(45)},
		Findings: []contract.Finding{
			{Check: check.RecoveryTooSlow, Severity: check.SeverityError,
				Message:     "10x overload meets capacity at 345 s (3 rounds), over the 240 s recovery target",
				Remediation: "Lower the target to 45 %.",
				Location:    &contract.Location{File: "charts/web/templates/hpa.yaml", Line: 12, Source: "charts/web"}},
			{Check: check.AssumptionDefault, Severity: check.SeverityWarning,
				Message:  "dead time is the default 90s",
				Location: &contract.Location{File: "charts/web/templates/hpa.yaml", Source: "charts/web"}}, // no line: the source line
			{Check: check.PeakWaitOverTarget, Severity: check.SeverityError,
				Message: "peak wait 420 s over the 30 s latency target"}, // no location: the source
			{Check: check.MinEqualsMax, Severity: check.SeverityWarning,
				Message: "minReplicas = maxReplicas", Ignored: true, IgnoreReason: "pinned during the migration"},
		},
	}
	jobs := contract.Workload{
		ID:          "jobs/ScaledObject/invoice consumer",
		Autoscaler:  contract.Ref{Kind: "ScaledObject", Name: "invoice consumer", Namespace: "jobs"},
		Source:      contract.Location{File: "deploy/jobs/scaled object.yaml", Line: 3},
		Signal:      "backlog",
		Verdict:     contract.VerdictFail,
		Assumptions: map[string]contract.Assumption{},
		Findings: []contract.Finding{
			{Check: check.Hunting, Severity: check.SeverityError,
				Message:  "hunts between 6 and 35 pods against 20 needed",
				Location: &contract.Location{Line: 9}}, // a line with no file: the source file
			{Check: check.AssumptionDefault, Severity: check.SeverityWarning,
				Message:  "pod rate is the default",
				Location: &contract.Location{File: "deploy/jobs/deployment.yaml"}}, // another file, no line: line 1
			{Check: check.Unpriced, Severity: check.SeverityInfo,
				Message: "rate signal", Ignored: true},
			{Check: "not-yet-registered", Severity: check.SeverityWarning, // not in the registry
				Message: "plugin skipped"},
		},
	}
	return contract.Report{
		SchemaVersion: contract.SchemaVersion,
		Tool:          contract.Tool{Name: "capreport", Version: "v0.1.0-test"},
		Root:          "deploy",
		Workloads:     []contract.Workload{web, jobs},
		Findings: []contract.Finding{
			{Check: check.RenderFailed, Severity: check.SeverityError,
				Message:  "template: web/templates/x.yaml:4: unexpected EOF",
				Location: &contract.Location{File: `charts\broken\templates\x.yaml`, Line: 4, Source: "charts/broken"}},
			{Check: check.InvalidAnnotation, Severity: check.SeverityError,
				Message: ".capreport.yaml: unknown key"}, // no location at all
		},
	}
}

// compileSARIFSchema compiles the committed schema with format assertions
// on (uri, uri-reference), offline.
func compileSARIFSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	raw, err := os.ReadFile(sarifSchemaFile)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("%s is not JSON: %v", sarifSchemaFile, err)
	}
	m, ok := doc.(map[string]any)
	if !ok || m["$schema"] != "http://json-schema.org/draft-07/schema#" {
		t.Fatalf("%s: $schema = %v, want draft-07", sarifSchemaFile, m["$schema"])
	}
	id, _ := m["$id"].(string)
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(id, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(id)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

func validateSARIF(t *testing.T, sch *jsonschema.Schema, out []byte) error {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("SARIF output is not JSON: %v", err)
	}
	return sch.Validate(inst)
}

func decodeSARIF(t *testing.T, out []byte) sarifLog {
	t.Helper()
	var log sarifLog
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&log); err != nil {
		t.Fatalf("decode SARIF: %v", err)
	}
	if len(log.Runs) != 1 {
		t.Fatalf("%d runs, want 1", len(log.Runs))
	}
	return log
}

func TestSARIFMatchesSchema(t *testing.T) {
	sch := compileSARIFSchema(t)
	for _, c := range []struct {
		name string
		r    contract.Report
		opts SARIFOptions
	}{
		{"findings of every kind", sarifReport(), SARIFOptions{}},
		{"base dir and version", sarifReport(), SARIFOptions{BaseDir: "ops/k8s", ToolVersion: "v9"}},
		{"no findings", contract.Report{SchemaVersion: contract.SchemaVersion, Tool: contract.Tool{Name: "capreport"}}, SARIFOptions{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := SARIF(c.r, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			if err := validateSARIF(t, sch, out); err != nil {
				t.Fatalf("SARIF does not match the 2.1.0 schema: %v", err)
			}
		})
	}
}

// The validation can fail: documents that break the schema are refused.
func TestSARIFSchemaRejects(t *testing.T) {
	sch := compileSARIFSchema(t)
	out, err := SARIF(sarifReport(), SARIFOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, from, to string }{
		{"line 0", `"startLine": 12`, `"startLine": 0`},
		{"unknown level", `"level": "error"`, `"level": "fatal"`},
		{"unknown suppression kind", `"kind": "inSource"`, `"kind": "annotation"`},
		{"wrong version", `"version": "2.1.0"`, `"version": "2.2.0"`},
		{"not a URI reference", `"uri": "charts/web/templates/hpa.yaml"`, `"uri": "charts/web/templates/%zz.yaml"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			bad := strings.Replace(string(out), c.from, c.to, 1)
			if bad == string(out) {
				t.Fatalf("%q not in the output", c.from)
			}
			if validateSARIF(t, sch, []byte(bad)) == nil {
				t.Errorf("schema accepted a log with %s", c.name)
			}
		})
	}
}

func TestSARIFResultsHaveFileAndLine(t *testing.T) {
	r := sarifReport()
	out, err := SARIF(r, SARIFOptions{})
	if err != nil {
		t.Fatal(err)
	}
	run := decodeSARIF(t, out).Runs[0]
	want := []struct {
		rule, uri string
		line      int
		workload  string
	}{
		{check.RecoveryTooSlow, "charts/web/templates/hpa.yaml", 12, "shop/HorizontalPodAutoscaler/web"},
		{check.AssumptionDefault, "charts/web/templates/hpa.yaml", 7, "shop/HorizontalPodAutoscaler/web"},
		{check.PeakWaitOverTarget, "charts/web/templates/hpa.yaml", 7, "shop/HorizontalPodAutoscaler/web"},
		{check.MinEqualsMax, "charts/web/templates/hpa.yaml", 7, "shop/HorizontalPodAutoscaler/web"},
		{check.Hunting, "deploy/jobs/scaled%20object.yaml", 9, "jobs/ScaledObject/invoice consumer"},
		{check.AssumptionDefault, "deploy/jobs/deployment.yaml", 1, "jobs/ScaledObject/invoice consumer"},
		{check.Unpriced, "deploy/jobs/scaled%20object.yaml", 3, "jobs/ScaledObject/invoice consumer"},
		{"not-yet-registered", "deploy/jobs/scaled%20object.yaml", 3, "jobs/ScaledObject/invoice consumer"},
		{check.RenderFailed, "charts/broken/templates/x.yaml", 4, ""},
		{check.InvalidAnnotation, "deploy", 1, ""},
	}
	if len(run.Results) != len(want) {
		t.Fatalf("%d results, want %d (one per finding, ignored included)", len(run.Results), len(want))
	}
	for i, res := range run.Results {
		w := want[i]
		if len(res.Locations) != 1 {
			t.Fatalf("result %d (%s): %d locations, want 1", i, res.RuleID, len(res.Locations))
		}
		pl := res.Locations[0].PhysicalLocation
		if pl.ArtifactLocation.URI == "" || pl.Region.StartLine < 1 {
			t.Errorf("result %d (%s): file %q line %d: every result needs a file and a line ≥ 1",
				i, res.RuleID, pl.ArtifactLocation.URI, pl.Region.StartLine)
		}
		if res.RuleID != w.rule || pl.ArtifactLocation.URI != w.uri || pl.Region.StartLine != w.line {
			t.Errorf("result %d = %s at %s:%d, want %s at %s:%d",
				i, res.RuleID, pl.ArtifactLocation.URI, pl.Region.StartLine, w.rule, w.uri, w.line)
		}
		var logical string
		if ll := res.Locations[0].LogicalLocations; len(ll) > 0 {
			logical = ll[0].FullyQualifiedName
		}
		if logical != w.workload {
			t.Errorf("result %d: logical location %q, want %q", i, logical, w.workload)
		}
	}

	// BaseDir re-roots every path at the repository root.
	out, err = SARIF(r, SARIFOptions{BaseDir: "ops/k8s/"})
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range decodeSARIF(t, out).Runs[0].Results {
		if uri := res.Locations[0].PhysicalLocation.ArtifactLocation.URI; !strings.HasPrefix(uri, "ops/k8s/") {
			t.Errorf("%s: uri %q does not start with the base dir", res.RuleID, uri)
		}
	}
}

func TestSARIFLevelsMessagesSuppressions(t *testing.T) {
	r := sarifReport()
	out, err := SARIF(r, SARIFOptions{})
	if err != nil {
		t.Fatal(err)
	}
	results := decodeSARIF(t, out).Runs[0].Results
	var findings []contract.Finding
	for _, w := range r.Workloads {
		findings = append(findings, w.Findings...)
	}
	findings = append(findings, r.Findings...)
	levels := map[string]string{check.SeverityError: "error", check.SeverityWarning: "warning", check.SeverityInfo: "note"}
	for i, f := range findings {
		res := results[i]
		if res.Level != levels[f.Severity] {
			t.Errorf("%s: level %q, want %q for severity %q", f.Check, res.Level, levels[f.Severity], f.Severity)
		}
		if !strings.HasPrefix(res.Message.Text, f.Message) {
			t.Errorf("%s: message %q does not start with the finding's %q", f.Check, res.Message.Text, f.Message)
		}
		if f.Remediation != "" && !strings.HasSuffix(res.Message.Text, "Remediation: "+f.Remediation) {
			t.Errorf("%s: message %q lacks the remediation", f.Check, res.Message.Text)
		}
		switch {
		case !f.Ignored && len(res.Suppressions) != 0:
			t.Errorf("%s: suppressed but not ignored", f.Check)
		case f.Ignored && (len(res.Suppressions) != 1 || res.Suppressions[0].Kind != "inSource" || res.Suppressions[0].Justification != f.IgnoreReason):
			t.Errorf("%s: suppressions %+v, want one inSource with justification %q", f.Check, res.Suppressions, f.IgnoreReason)
		}
	}
}

func TestSARIFRules(t *testing.T) {
	out, err := SARIF(sarifReport(), SARIFOptions{})
	if err != nil {
		t.Fatal(err)
	}
	run := decodeSARIF(t, out).Runs[0]
	d := run.Tool.Driver
	if d.Name != "capreport" || d.Version != "v0.1.0-test" {
		t.Errorf("driver = %s %s, want capreport v0.1.0-test", d.Name, d.Version)
	}
	if bytes.Contains(out, []byte("informationUri")) || bytes.Contains(out, []byte("helpUri")) {
		t.Error("the log must not link anywhere (no informationUri, helpUri)")
	}
	checks := check.All()
	if len(d.Rules) != len(checks)+1 {
		t.Fatalf("%d rules, want the %d registered checks and not-yet-registered", len(d.Rules), len(checks))
	}
	levels := map[string]string{check.SeverityError: "error", check.SeverityWarning: "warning", check.SeverityInfo: "note"}
	for i, c := range checks {
		r := d.Rules[i]
		switch {
		case r.ID != c.ID:
			t.Errorf("rule %d = %q, want %q (registry order)", i, r.ID, c.ID)
		case r.ShortDescription == nil || r.ShortDescription.Text != c.Title:
			t.Errorf("%s: shortDescription %+v, want %q", c.ID, r.ShortDescription, c.Title)
		case r.FullDescription == nil || r.FullDescription.Text != c.Description:
			t.Errorf("%s: fullDescription %+v, want the description", c.ID, r.FullDescription)
		case r.Help == nil || !strings.Contains(r.Help.Text, c.Description) || !strings.Contains(r.Help.Text, c.Remediation):
			t.Errorf("%s: help %+v must hold the description and the remediation", c.ID, r.Help)
		case r.DefaultConfiguration == nil || r.DefaultConfiguration.Level != levels[c.Severity]:
			t.Errorf("%s: default level %+v, want %q", c.ID, r.DefaultConfiguration, levels[c.Severity])
		}
	}
	var ids []string
	for _, r := range d.Rules {
		ids = append(ids, r.ID)
	}
	for _, want := range []string{"dead-band", "recovery-too-slow", "peak-wait-over-target", "hunting", "latency-floor",
		"standing-delay-over-target", "assumption-default", "dangling-target", "duplicate-autoscaler",
		"kafka-partition-cap", "max-replicas-below-need", "min-equals-max", "render-failed", "unpriced"} {
		if !slices.Contains(ids, want) {
			t.Errorf("no rule %q", want)
		}
	}
	for _, res := range run.Results {
		if res.RuleIndex < 0 || res.RuleIndex >= len(d.Rules) || d.Rules[res.RuleIndex].ID != res.RuleID {
			t.Errorf("result %s: ruleIndex %d does not point at its rule", res.RuleID, res.RuleIndex)
		}
	}
}

// TestSARIFGolden pins the results (the driver's rules follow the check
// registry, which TestSARIFRules checks against check.All itself, so a
// new check does not churn this file).
func TestSARIFGolden(t *testing.T) {
	out, err := SARIF(sarifReport(), SARIFOptions{})
	if err != nil {
		t.Fatal(err)
	}
	again, err := SARIF(sarifReport(), SARIFOptions{})
	if err != nil || !bytes.Equal(out, again) {
		t.Fatalf("SARIF is not deterministic (err %v)", err)
	}
	results, err := json.MarshalIndent(decodeSARIF(t, out).Runs[0].Results, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	results = append(results, '\n')
	path := filepath.Join("testdata", "sarif", "results.golden.sarif")
	testutil.Golden(t, path, results, *update)
}

func TestArtifactURI(t *testing.T) {
	for _, c := range []struct{ base, file, want string }{
		{"", "deploy/hpa.yaml", "deploy/hpa.yaml"},
		{"", "./deploy//hpa.yaml", "deploy/hpa.yaml"},
		{"", `charts\web\templates\hpa.yaml`, "charts/web/templates/hpa.yaml"},
		{"", "a dir/hpa#1.yaml", "a%20dir/hpa%231.yaml"},
		{"", "k:v/hpa.yaml", "./k:v/hpa.yaml"},
		{"ops", "deploy/hpa.yaml", "ops/deploy/hpa.yaml"},
		{"ops", "/abs/hpa.yaml", "/abs/hpa.yaml"},
	} {
		if got := artifactURI(c.base, c.file); got != c.want {
			t.Errorf("artifactURI(%q, %q) = %q, want %q", c.base, c.file, got, c.want)
		}
	}
}
