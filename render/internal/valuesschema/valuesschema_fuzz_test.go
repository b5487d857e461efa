package valuesschema

import (
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart"
)

// FuzzSchemaRefs: a values schema that RefFinding lets Helm validate
// (no finding) never makes the validator load anything (no file read, no
// request); a schema that would is always rendered unvalidated, with the
// finding. What the validator would load is compilerLoads, the compile
// production decides with, so this guards the wiring (every chart of the
// tree, the keyword walk beside it) and the absence of panics and hangs;
// what compilerLoads records is held to fixed expectations in
// TestCompilerLoadsSeesRefs and TestSchemaIDThatLoads.
func FuzzSchemaRefs(f *testing.F) {
	for _, s := range []string{
		`{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": {"x": {"$ref": "#/definitions/x"}}, "definitions": {"x": {"type": "string"}}}`,
		`{"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": {"a": {"type": "integer"}}, "properties": {"a": {"$ref": "#/$defs/a"}}}`,
		`{"properties": {"x": {"$ref": "defs.json"}}}`,
		`{"$id": "http://example.com/s.json", "properties": {"x": {"$ref": "#"}}}`,
		`{"$schema": "json-schema.org/draft-07/schema"}`,
		`{"$dynamicRef": "#meta", "$dynamicAnchor": "meta"}`,
		`{"allOf": [{"$ref": "urn:x"}], "$recursiveRef": "#"}`,
		`{"properties": {"a": {"$id": "b.json", "$ref": "#/x"}}}`,
		// Found by CI: an "$id" that URL normalisation rewrites makes "#" load.
		"{\"$id\": \"http:/\x90\x90/example.com/s.json\", \"properties\": {\"x\": {\"$ref\": \"#\"}}}",
		`{"$id": "http:/x/s.json", "$ref": "#/definitions/a", "definitions": {"a": {}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, schema []byte) {
		loads := compilerLoads(schema)
		// The chart's own schema, and the same schema on a subchart.
		own := &chart.Chart{Metadata: &chart.Metadata{Name: "c", APIVersion: "v2", Version: "0.1.0"}, Schema: schema}
		parent := &chart.Chart{Metadata: &chart.Metadata{Name: "p", APIVersion: "v2", Version: "0.1.0"}}
		parent.AddDependency(&chart.Chart{Metadata: &chart.Metadata{Name: "d", APIVersion: "v2", Version: "0.1.0"}, Schema: schema})
		for _, c := range []*chart.Chart{own, parent} {
			if RefFinding(c, c.Name()) == nil && len(loads) > 0 {
				t.Fatalf("%s: schema %q passed as self-contained, but Helm's validator would load %q", c.Name(), schema, loads)
			}
		}
	})
}

// compilerLoads records what Helm's validator would load: a file, a URL or
// a metaschema elsewhere, and nothing for a local reference.
func TestCompilerLoadsSeesRefs(t *testing.T) {
	for _, s := range []string{`{"$ref": "defs.json"}`, `{"properties": {"x": {"$ref": "https://example.com/s.json"}}}`, `{"$schema": "https://example.com/meta"}`} {
		if urls := compilerLoads([]byte(s)); len(urls) == 0 {
			t.Errorf("%s: no load recorded", s)
		}
	}
	if urls := compilerLoads([]byte(`{"$ref": "#/definitions/a", "definitions": {"a": {}}}`)); len(urls) > 0 {
		t.Errorf("a local ref loaded %q", urls)
	}
}

// An "$id" whose URL does not survive normalisation makes the compiler
// load even a "$ref": "#"; such a chart is rendered unvalidated, with the
// finding naming what would have been loaded.
func TestSchemaIDThatLoads(t *testing.T) {
	schema := []byte(`{"$id": "http:/x/example.com/s.json", "properties": {"x": {"$ref": "#"}}}`)
	if urls := compilerLoads(schema); len(urls) != 1 || urls[0] != "http:///x/example.com/s.json" {
		t.Fatalf("premise: the validator loads %q, want http:///x/example.com/s.json", urls)
	}
	c := &chart.Chart{Metadata: &chart.Metadata{Name: "c", APIVersion: "v2", Version: "0.1.0"}, Schema: schema}
	f := RefFinding(c, "c")
	if f == nil || !strings.Contains(f.Message, `"http:///x/example.com/s.json"`) {
		t.Fatalf("finding = %+v, want one naming the URL the validator would load", f)
	}
}
