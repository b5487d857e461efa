package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/capreport/capreport/contract"
)

// validate checks doc as report/artifact and merge do, compiling the
// schema for the one call.
func validate(doc []byte) error {
	v, err := NewValidator()
	if err != nil {
		return err
	}
	return v.Validate(doc)
}

func TestJSON(t *testing.T) {
	got, err := JSON(specimenReport(), Options{Pretty: true})
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "specimen.golden.json", got)
	// The default is the same document, compact: one line.
	compact, err := JSON(specimenReport(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := json.Compact(&want, got); err != nil {
		t.Fatal(err)
	}
	want.WriteByte('\n')
	if !bytes.Equal(compact, want.Bytes()) || bytes.Count(compact, []byte("\n")) != 1 {
		t.Errorf("default JSON is not the golden compacted:\n%.300s", compact)
	}
	if err := validate(got); err != nil {
		t.Fatalf("specimen report does not validate: %v", err)
	}
	// The contract round-trips: diff and merge read what JSON writes.
	var back contract.Report
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatal(err)
	}
	again, _ := JSON(back, Options{Pretty: true})
	if string(again) != string(got) {
		t.Error("JSON does not round-trip through contract.Report")
	}
}

// TestWriteJSONIsMarshal: the report written a workload at a time is
// json.Marshal's text (MarshalIndent's with Pretty), for no workload, one
// and many, and strings that look like the workloads' key.
func TestWriteJSONIsMarshal(t *testing.T) {
	tricky := specimenReport()
	tricky.Root = `"workloads":[]`
	tricky.Workloads[0].ID = `x","workloads": []`
	bare := specimenReport()
	bare.Workloads = nil
	for name, r := range map[string]contract.Report{
		"specimen": specimenReport(), "synthetic": syntheticReport(20), "bare": bare, "tricky": tricky,
	} {
		for _, pretty := range []bool{false, true} {
			got, err := JSON(r, Options{Pretty: pretty})
			if err != nil {
				t.Fatal(err)
			}
			want, _ := json.Marshal(normalize(r))
			if pretty {
				want, _ = json.MarshalIndent(normalize(r), "", "  ")
			}
			if want = append(want, '\n'); !bytes.Equal(got, want) {
				t.Errorf("%s, pretty %v: WriteJSON differs from json.Marshal:\n%.300s\n---\n%.300s", name, pretty, got, want)
			}
		}
	}
}

// Every golden JSON file in testdata is an example report: all must
// validate, so a schema change that breaks a committed example fails here.
func TestSchemaValidatesGoldenExamples(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*", "*.golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no golden JSON examples found")
	}
	for _, f := range files {
		doc, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := validate(doc); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// Reports built the way rules may build them (nil lists, no bills, the
// synthetic monorepo) validate once rendered by JSON.
func TestSchemaValidatesConstructedReports(t *testing.T) {
	bare := contract.Report{SchemaVersion: contract.SchemaVersion, Tool: contract.Tool{Name: "capreport", Version: "dev"}, Root: "."}
	bare.Workloads = []contract.Workload{{
		ID: "default/HorizontalPodAutoscaler/x", Autoscaler: contract.Ref{Kind: "HorizontalPodAutoscaler", Name: "x"},
		Target: contract.Ref{Kind: "Deployment", Name: "x"}, Signal: "unknown", Verdict: contract.VerdictUnpriced,
	}}
	for name, r := range map[string]contract.Report{
		"bare":      bare,
		"specimen":  specimenReport(),
		"synthetic": syntheticReport(20),
	} {
		doc, err := JSON(r, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := validate(doc); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// The schema must reject what the contract forbids.
func TestSchemaRejectsInvalidReports(t *testing.T) {
	good, err := JSON(specimenReport(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		mutate func(m map[string]any)
		want   string // a fragment of the validation error
	}{
		{"missing verdict", func(m map[string]any) { delete(workload(m, 0), "verdict") }, "verdict"},
		{"verdict not in enum", func(m map[string]any) { workload(m, 0)["verdict"] = "maybe" }, "verdict"},
		{"missing workloads", func(m map[string]any) { delete(m, "workloads") }, "workloads"},
		{"wrong schema version", func(m map[string]any) { m["schemaVersion"] = "capreport.io/report/v0" }, "schemaVersion"},
		{"severity not in enum", func(m map[string]any) {
			workload(m, 0)["findings"].([]any)[0].(map[string]any)["severity"] = "fatal"
		}, "severity"},
		{"rounds as string", func(m map[string]any) {
			w := workload(m, 3)
			w["size"].(map[string]any)["overloads"].([]any)[0].(map[string]any)["rounds"] = "three"
		}, "rounds"},
		{"undocumented field", func(m map[string]any) { workload(m, 0)["colour"] = "red" }, "colour"},
		{"null findings", func(m map[string]any) { m["findings"] = nil }, "findings"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var m map[string]any
			if err := json.Unmarshal(good, &m); err != nil {
				t.Fatal(err)
			}
			tc.mutate(m)
			bad, _ := json.Marshal(m)
			err := validate(bad)
			if err == nil {
				t.Fatal("invalid report validated")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error does not name %q: %v", tc.want, err)
			}
		})
	}
	if err := validate([]byte("{not json")); err == nil {
		t.Error("non-JSON validated")
	}
}

func workload(m map[string]any, i int) map[string]any {
	return m["workloads"].([]any)[i].(map[string]any)
}

// The schema documents every field of contract.Report: each JSON field of each
// contract type is a property of its $defs entry with a description, and it
// is required exactly when it is always written (no omitempty). Adding a
// field to rules without documenting it fails here.
func TestSchemaDocumentsEveryField(t *testing.T) {
	checkDocumented(t, schemaV1, reflect.TypeFor[contract.Report]())
}

// The inventory schema (capreport list --format json) documents every field
// of contract.Inventory the same way.
func TestInventorySchemaDocumentsEveryField(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("schema", "inventory.v1.json"))
	if err != nil {
		t.Fatal(err)
	}
	checkDocumented(t, doc, reflect.TypeFor[contract.Inventory]())
}

// jsonSchema is the part of a contract's schema checkDocumented reads.
type jsonSchema struct {
	Required   []string                  `json:"required"`
	Properties map[string]map[string]any `json:"properties"`
	Defs       map[string]struct {
		Description string                    `json:"description"`
		Required    []string                  `json:"required"`
		Properties  map[string]map[string]any `json:"properties"`
	} `json:"$defs"`
}

// checkDocumented holds the schema doc to the contract type root: every
// JSON field of every struct type under it is a described property of its
// $defs entry (named as the type), required exactly when always written,
// and the schema defines no other struct.
func checkDocumented(t *testing.T, doc []byte, root reflect.Type) {
	t.Helper()
	var schema jsonSchema
	if err := json.Unmarshal(doc, &schema); err != nil {
		t.Fatal(err)
	}
	seen := map[reflect.Type]bool{}
	var walk func(typ reflect.Type, def string, required []string, props map[string]map[string]any)
	walk = func(typ reflect.Type, def string, required []string, props map[string]map[string]any) {
		if seen[typ] {
			return
		}
		seen[typ] = true
		var wantRequired []string
		fields := 0
		for i := range typ.NumField() {
			f := typ.Field(i)
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue // explicitly not part of the JSON (check.Finding's Source and Cause)
			}
			fields++
			if name == "" {
				t.Errorf("%s.%s has no JSON name", typ.Name(), f.Name)
				continue
			}
			if !strings.Contains(opts, "omitempty") {
				wantRequired = append(wantRequired, name)
			}
			p, ok := props[name]
			if !ok {
				t.Errorf("schema %s lacks property %q (%s.%s)", def, name, typ.Name(), f.Name)
				continue
			}
			if d, _ := p["description"].(string); d == "" {
				t.Errorf("schema %s.%s has no description", def, name)
			}
			ft := f.Type
			for ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Slice || ft.Kind() == reflect.Map {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				sub, ok := schema.Defs[ft.Name()]
				if !ok {
					t.Errorf("schema lacks $defs/%s", ft.Name())
					continue
				}
				walk(ft, ft.Name(), sub.Required, sub.Properties)
			}
		}
		if len(props) != fields {
			t.Errorf("schema %s has %d properties, %s has %d JSON fields", def, len(props), typ.Name(), fields)
		}
		slices.Sort(wantRequired)
		gotRequired := slices.Sorted(slices.Values(required))
		if !slices.Equal(gotRequired, wantRequired) {
			t.Errorf("schema %s requires %v, want the always-written fields %v", def, gotRequired, wantRequired)
		}
	}
	walk(root, "root", schema.Required, schema.Properties)
	for name, d := range schema.Defs {
		if d.Description == "" {
			t.Errorf("$defs/%s has no description", name)
		}
	}
	if len(seen) != len(schema.Defs)+1 {
		t.Errorf("schema has %d $defs, the contract %d struct types", len(schema.Defs), len(seen)-1)
	}
}
