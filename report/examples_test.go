package report

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/capreport/capreport/analyze"
	"github.com/capreport/capreport/config"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/render"
	"github.com/capreport/capreport/report/plot"
	"github.com/capreport/capreport/rules"
)

// examplesReport prices examples/shop through the whole pipeline.
func examplesReport(t *testing.T) (contract.Report, string) {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "examples", "shop"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	res, err := render.Render(context.Background(), root, cfg.RenderOptions(render.DefaultOptions()))
	if err != nil {
		t.Fatal(err)
	}
	r, err := rules.Build(context.Background(), root, res, analyze.Extract(res.Objects, cfg), cfg, rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Workloads) != 3 {
		t.Fatalf("examples/shop has %d autoscalers, want 3", len(r.Workloads))
	}
	return *r, root
}

// The SARIF of examples/ validates against the 2.1.0 schema, and every
// result points at the autoscaler's file and line.
func TestExamplesSARIF(t *testing.T) {
	r, root := examplesReport(t)
	out, err := SARIF(r, SARIFOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := validateSARIF(t, compileSARIFSchema(t), out); err != nil {
		t.Fatalf("examples SARIF does not validate: %v", err)
	}
	log := decodeSARIF(t, out)
	sources := map[string]bool{}
	for _, w := range r.Workloads {
		sources[w.Source.File] = true
	}
	n := 0
	for _, run := range log.Runs {
		for _, res := range run.Results {
			n++
			loc := res.Locations[0].PhysicalLocation
			file, line := loc.ArtifactLocation.URI, loc.Region.StartLine
			if line < 1 || !sources[file] {
				t.Errorf("%s at %s:%d, not an autoscaler's file (%v)", res.RuleID, file, line, sources)
				continue
			}
			body, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			lines := strings.Split(string(body), "\n")
			if line > len(lines) {
				t.Errorf("%s: line %d past the end", file, line)
			}
		}
	}
	if n == 0 {
		t.Fatal("no SARIF results for an example that fails by design")
	}
}

// The HTML of examples/ references nothing outside the page, inlines the
// SVG plots, and keeps the ledger table.
func TestExamplesHTML(t *testing.T) {
	r, _ := examplesReport(t)
	o := DefaultOptions()
	o.SVGPlots = map[string][][]byte{}
	for _, w := range r.Workloads {
		figs, err := plot.ForWorkload(w, plot.FormatSVG)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range figs {
			o.SVGPlots[w.ID] = append(o.SVGPlots[w.ID], f.Data)
		}
	}
	page, err := HTML(r, o)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(page, []byte("<svg")); n < 3 {
		t.Errorf("%d inline SVG plots, want one per figure", n)
	}
	external := regexp.MustCompile(`(?i)(https?:|//[a-z0-9]|<link|<script[^>]*src|src="[^"#d]|href="[^"#])`)
	if m := external.Find(page); m != nil {
		t.Errorf("the page references something outside it: %q", m)
	}
	md, err := Markdown(r, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var html bytes.Buffer
	if err := goldmark.New(goldmark.WithExtensions(extension.GFM)).Convert(md, &html); err != nil {
		t.Fatal(err)
	}
	if rows := strings.Count(tableOf(html.String()), "<tr>"); rows != 1+len(r.Workloads) {
		t.Errorf("ledger table has %d rows, want a header and %d", rows, len(r.Workloads))
	}
	// The JSON of the same report is what --format json prints; keep it valid.
	js, _ := json.Marshal(r)
	if err := validate(js); err != nil {
		t.Errorf("examples report does not validate: %v", err)
	}
}

// tableOf returns the first table of an HTML document.
func tableOf(doc string) string {
	start := strings.Index(doc, "<table>")
	end := strings.Index(doc, "</table>")
	if start < 0 || end < start {
		return ""
	}
	return doc[start:end]
}
