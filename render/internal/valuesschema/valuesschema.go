// Package valuesschema says whether a chart's values schema refers outside
// itself, which Helm's validator would fetch or read from the runner's
// disk; such a chart is rendered without schema validation, and a finding
// says why.
package valuesschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/capreport/capreport/check"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"helm.sh/helm/v3/pkg/chart"
)

// Helm validates values against values.schema.json with loaders for
// file, http and https: a "$ref" to a URL is fetched while rendering, and a
// relative one resolves against file:///, so it reads the runner's root
// filesystem. capreport resolves nothing outside the schema itself: a
// chart whose schema refers elsewhere is rendered without schema
// validation, and a finding says why.
//
// "Refers elsewhere" is decided two ways and either suffices. A walk of
// the document lists the reference keywords that leave it, for the
// message. And the schema is compiled exactly as Helm compiles it (same
// library, same resource URL, same schemes) with loaders that refuse and
// record: whatever the compiler asks them for, Helm would have fetched or
// read. The walk alone missed cases such as an "$id" that does not survive
// URL normalisation, which makes even a "$ref": "#" resolve to a URL the
// compiler then loads.

// RefFinding is the finding for a chart whose values schema refers
// outside itself (it is then rendered without schema validation); nil when
// it refers nowhere else.
func RefFinding(c *chart.Chart, chartRel string) *check.Finding {
	refs := outsideSchemaRefs(c)
	if len(refs) == 0 {
		return nil
	}
	return &check.Finding{Check: check.SchemaRef, Severity: check.SeverityWarning, Location: check.At(chartRel+"/values.schema.json", 0),
		Message: fmt.Sprintf("%s: values.schema.json refers outside itself (%s); capreport never fetches or reads those, so the values were not validated against the schema",
			chartRel, strings.Join(refs, ", "))}
}

// knownMetaSchemas are the drafts the validator carries built in (a
// "$schema" naming one is never fetched): jsonschema/v6's draftFromURL,
// where json-schema.org/schema is the latest draft. Every bitnami chart
// names that one.
var knownMetaSchemas = []string{
	"json-schema.org/schema", "json-schema.org/draft-04/schema", "json-schema.org/draft-06/schema", "json-schema.org/draft-07/schema",
	"json-schema.org/draft/2019-09/schema", "json-schema.org/draft/2020-12/schema",
}

// outsideSchemaRefs lists, per chart of the tree, the references its
// values schema makes outside the document.
func outsideSchemaRefs(c *chart.Chart) []string {
	var out []string
	var walk func(c *chart.Chart, name string)
	walk = func(c *chart.Chart, name string) {
		if len(c.Schema) > 0 {
			refs := compilerLoads(c.Schema)
			var doc any
			if json.Unmarshal(c.Schema, &doc) == nil {
				refs = append(refs, schemaRefs(doc, 0)...)
			}
			seen := map[string]bool{}
			for _, r := range refs {
				if !seen[r] {
					seen[r] = true
					out = append(out, fmt.Sprintf("%s: %q", name, r))
				}
			}
		}
		for _, d := range c.Dependencies() {
			walk(d, name+"/charts/"+d.Name())
		}
	}
	walk(c, c.Name())
	sort.Strings(out)
	return out
}

// schemaRefs collects "$ref", "$dynamicRef" and "$recursiveRef" values
// that leave the document, and a "$schema" that is not a built-in draft.
func schemaRefs(v any, depth int) []string {
	if depth > 200 {
		return []string{"(schema nested too deep)"}
	}
	var out []string
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			s, isString := e.(string)
			switch {
			case isString && (k == "$ref" || k == "$dynamicRef" || k == "$recursiveRef") && !strings.HasPrefix(s, "#"):
				out = append(out, s)
			case isString && k == "$schema" && !builtinMetaSchema(s):
				out = append(out, s)
			default:
				out = append(out, schemaRefs(e, depth+1)...)
			}
		}
	case []any:
		for _, e := range t {
			out = append(out, schemaRefs(e, depth+1)...)
		}
	}
	return out
}

func builtinMetaSchema(s string) bool {
	s = strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(s, "https://"), "http://"), "#")
	for _, m := range knownMetaSchemas {
		if s == m {
			return true
		}
	}
	return false
}

// refusingLoader stands in for every loader Helm configures; it loads
// nothing and records what the compiler asked it for.
type refusingLoader struct {
	mu   sync.Mutex
	urls []string
}

func (l *refusingLoader) Load(url string) (any, error) {
	l.mu.Lock()
	l.urls = append(l.urls, url)
	l.mu.Unlock()
	return nil, fmt.Errorf("capreport loads no schema from outside the chart (%s)", url)
}

// compilerLoads compiles schemaJSON as chartutil.ValidateAgainstSingleSchema
// does and returns the URLs the compiler tried to load. A schema that does
// not parse loads nothing (Helm fails on it before compiling).
func compilerLoads(schemaJSON []byte) []string {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return nil
	}
	rec := &refusingLoader{}
	c := jsonschema.NewCompiler()
	c.UseLoader(jsonschema.SchemeURLLoader{"file": rec, "http": rec, "https": rec, "urn": rec})
	func() {
		defer func() { _ = recover() }() // Helm recovers a compiler panic as a validation error
		if c.AddResource("file:///values.schema.json", doc) == nil {
			_, _ = c.Compile("file:///values.schema.json")
		}
	}()
	return rec.urls
}
