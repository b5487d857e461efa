package render

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/capreport/capreport/check"
)

// Issue 11: a values.schema.json "$ref" made Helm issue an HTTP GET while
// rendering, and a file:// one read files outside the repository (and the
// finding quoted them). Neither happens: no request reaches the server, no
// outside content appears, and the chart still renders, unvalidated, with
// a finding.
func TestSchemaRefsAreNotResolved(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		_, _ = w.Write([]byte(`{"type": "object"}`))
	}))
	defer srv.Close()
	outside := filepath.Join(t.TempDir(), "outside.json")
	if err := os.WriteFile(outside, []byte(`{"type": "object", "description": "OUTSIDE-SECRET"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, ref := range map[string]string{"http": srv.URL + "/schema.json", "file": "file://" + outside, "relative": "defs.json", "passwd": "file:///etc/passwd"} {
		t.Run(name, func(t *testing.T) {
			res := renderMem(t, map[string]string{
				"c/Chart.yaml":         "apiVersion: v2\nname: c\nversion: 0.1.0\n",
				"c/values.schema.json": `{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": {"x": {"$ref": "` + ref + `"}}}`,
				"c/templates/h.yaml":   hpaDoc("web", "4"),
			}, ".", DefaultOptions())
			if n := hits.Load(); n != 0 {
				t.Errorf("%d request(s) reached the server", n)
			}
			found := false
			for _, f := range res.Findings {
				if strings.Contains(f.Message, "OUTSIDE-SECRET") || strings.Contains(f.Message, "root:x:") {
					t.Errorf("a finding quotes outside content: %s", f.Message)
				}
				found = found || (f.Check == check.SchemaRef && strings.Contains(f.Message, ref))
			}
			if !found {
				t.Errorf("no %s finding naming %s: %s", check.SchemaRef, ref, dumpFindings(res.Findings))
			}
			if !hasObject(res, "HorizontalPodAutoscaler", "default", "web") {
				t.Errorf("the chart did not render")
			}
		})
	}
}

// A UTF-16 file and a CR-only file render their objects, with their lines.
func TestConvertedYAMLRenders(t *testing.T) {
	u := []byte{0xFE, 0xFF}
	for _, r := range "---\n" + hpaDoc("web", "4") {
		u = append(u, 0, byte(r))
	}
	res := renderMem(t, map[string]string{"a.yaml": string(u), "b.yaml": strings.ReplaceAll("---\n"+hpaDoc("cr", "4"), "\n", "\r")}, ".", DefaultOptions())
	for _, name := range []string{"web", "cr"} {
		found := false
		for _, o := range res.Objects {
			if o.Name == name && o.Kind == "HorizontalPodAutoscaler" {
				found = true
				if o.Origin.Line != 2 {
					t.Errorf("%s at line %d, want 2", name, o.Origin.Line)
				}
			}
		}
		if !found {
			t.Errorf("HPA %s not rendered: %s", name, dumpFindings(res.Findings))
		}
	}
}

// Issue 30: bitnami's values.schema.json names the latest draft,
// "http://json-schema.org/schema#", which the validator carries built in:
// it is no reference, and the values are validated as helm validates them
// (a value of the wrong type fails the render).
func TestLatestDraftIsNoReference(t *testing.T) {
	for _, schema := range []string{"http://json-schema.org/schema#", "https://json-schema.org/schema", "http://json-schema.org/draft-07/schema#"} {
		t.Run(schema, func(t *testing.T) {
			files := map[string]string{
				"c/Chart.yaml":         "apiVersion: v2\nname: c\nversion: 0.1.0\n",
				"c/values.yaml":        "replicaCount: 2\n",
				"c/values.schema.json": `{"$schema": "` + schema + `", "type": "object", "properties": {"replicaCount": {"type": "integer"}}}`,
				"c/templates/h.yaml":   hpaDoc("web", "4"),
			}
			res := renderMem(t, files, ".", DefaultOptions())
			for _, f := range res.Findings {
				if f.Check == check.SchemaRef {
					t.Errorf("finding %s", f.Message)
				}
			}
			if !hasObject(res, "HorizontalPodAutoscaler", "default", "web") {
				t.Fatalf("the chart did not render: %s", dumpFindings(res.Findings))
			}
			files["c/values.yaml"] = "replicaCount: two\n"
			res = renderMem(t, files, ".", DefaultOptions())
			if hasObject(res, "HorizontalPodAutoscaler", "default", "web") || !strings.Contains(dumpFindings(res.Findings), "replicaCount") {
				t.Errorf("values against the schema were not validated: %s", dumpFindings(res.Findings))
			}
		})
	}
}
