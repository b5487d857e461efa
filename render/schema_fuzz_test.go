package render

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"helm.sh/helm/v3/pkg/chart"
)

// recordingLoader stands in for every loader Helm configures (file, http,
// https, urn): it reads nothing and records what it was asked for.
type recordingLoader struct {
	mu   sync.Mutex
	urls []string
}

func (l *recordingLoader) Load(url string) (any, error) {
	l.mu.Lock()
	l.urls = append(l.urls, url)
	l.mu.Unlock()
	return nil, fmt.Errorf("fuzz: %s must not be loaded", url)
}

// helmSchemaLoads compiles schema as chartutil.ValidateAgainstSingleSchema
// does (same library, same resource URL, same schemes) and returns the
// URLs the compiler asked its loaders for.
func helmSchemaLoads(schemaJSON []byte) []string {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return nil
	}
	rec := &recordingLoader{}
	c := jsonschema.NewCompiler()
	c.UseLoader(jsonschema.SchemeURLLoader{"file": rec, "http": rec, "https": rec, "urn": rec})
	func() {
		defer func() { _ = recover() }() // Helm recovers a compiler panic too
		if c.AddResource("file:///values.schema.json", doc) == nil {
			_, _ = c.Compile("file:///values.schema.json")
		}
	}()
	return rec.urls
}

// FuzzSchemaRefs: a values schema that schemaRefFinding lets Helm validate
// (no finding) never makes the validator load anything (no file read, no
// request); a schema that would is always rendered unvalidated, with the
// finding.
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
		c := &chart.Chart{Metadata: &chart.Metadata{Name: "c", APIVersion: "v2", Version: "0.1.0"}, Schema: schema}
		if schemaRefFinding(c, "c") != nil {
			return // rendered without schema validation
		}
		if urls := helmSchemaLoads(schema); len(urls) > 0 {
			t.Fatalf("schema %q passed as self-contained, but Helm's validator would load %q", schema, urls)
		}
	})
}

// The oracle of FuzzSchemaRefs sees what Helm would load: a schema that
// refers to a file, a URL or a metaschema elsewhere.
func TestHelmSchemaLoadsSeesRefs(t *testing.T) {
	for _, s := range []string{`{"$ref": "defs.json"}`, `{"properties": {"x": {"$ref": "https://example.com/s.json"}}}`, `{"$schema": "https://example.com/meta"}`} {
		if urls := helmSchemaLoads([]byte(s)); len(urls) == 0 {
			t.Errorf("%s: no load recorded", s)
		}
	}
	if urls := helmSchemaLoads([]byte(`{"$ref": "#/definitions/a", "definitions": {"a": {}}}`)); len(urls) > 0 {
		t.Errorf("a local ref loaded %q", urls)
	}
}

// An "$id" whose URL does not survive normalisation makes the compiler
// load even a "$ref": "#"; such a chart is rendered unvalidated, with the
// finding naming what would have been loaded.
func TestSchemaIDThatLoads(t *testing.T) {
	schema := []byte(`{"$id": "http:/x/example.com/s.json", "properties": {"x": {"$ref": "#"}}}`)
	if urls := helmSchemaLoads(schema); len(urls) != 1 || urls[0] != "http:///x/example.com/s.json" {
		t.Fatalf("premise: the validator loads %q, want http:///x/example.com/s.json", urls)
	}
	c := &chart.Chart{Metadata: &chart.Metadata{Name: "c", APIVersion: "v2", Version: "0.1.0"}, Schema: schema}
	f := schemaRefFinding(c, "c")
	if f == nil || !strings.Contains(f.Message, `"http:///x/example.com/s.json"`) {
		t.Fatalf("finding = %+v, want one naming the URL the validator would load", f)
	}
}
