package render

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
)

// Helm validates values against values.schema.json with loaders for
// file, http and https: a "$ref" to a URL is fetched while rendering, and a
// relative one resolves against file:///, so it reads the runner's root
// filesystem. capreport resolves nothing outside the schema itself: a
// chart whose schema refers elsewhere is rendered without schema
// validation, and a finding says why.

// schemaRefFinding is the finding for a chart whose values schema refers
// outside itself (it is then rendered without schema validation); nil when
// it refers nowhere else.
func schemaRefFinding(c *chart.Chart, chartRel string) *Finding {
	refs := outsideSchemaRefs(c)
	if len(refs) == 0 {
		return nil
	}
	return &Finding{Check: CheckSchemaRef, Severity: SeverityWarning, File: chartRel + "/values.schema.json",
		Message: fmt.Sprintf("%s: values.schema.json refers outside itself (%s); capreport never fetches or reads those, so the values were not validated against the schema",
			chartRel, strings.Join(refs, ", "))}
}

// knownMetaSchemas are the drafts the validator carries built in (a
// "$schema" naming one is never fetched).
var knownMetaSchemas = []string{
	"json-schema.org/draft-04/schema", "json-schema.org/draft-06/schema", "json-schema.org/draft-07/schema",
	"json-schema.org/draft/2019-09/schema", "json-schema.org/draft/2020-12/schema",
}

// outsideSchemaRefs lists, per chart of the tree, the references its
// values schema makes outside the document.
func outsideSchemaRefs(c *chart.Chart) []string {
	var out []string
	var walk func(c *chart.Chart, name string)
	walk = func(c *chart.Chart, name string) {
		if len(c.Schema) > 0 {
			var doc any
			if json.Unmarshal(c.Schema, &doc) == nil {
				for _, r := range schemaRefs(doc, 0) {
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
