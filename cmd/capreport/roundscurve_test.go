package main

import (
	"bytes"
	"testing"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdtest"
	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/report/diff"
)

// The rounds sweep (and the Φ samples) are computed only for outputs that
// show them: a format
// that showsPlotCurves leaves out renders the same bytes from a report
// priced without the sweep, and one it keeps does read the sweep. The same
// holds for diff (only its JSON carries whole workloads); explain's text
// is held to it in its own package (TestTextBillReadsNoRoundsCurve).
func TestRoundsCurveOnlyWhereShown(t *testing.T) {
	price := cmdtest.ShopPricer(t)
	with, without := price(false), price(true)
	for _, f := range reportFormats {
		a, err := cmdutil.RenderFormat(with, f, cmdutil.FormatOptions{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := cmdutil.RenderFormat(without, f, cmdutil.FormatOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if shown := showsPlotCurves(f, ""); shown == bytes.Equal(a, b) {
			t.Errorf("--format %s: showsPlotCurves %v, yet the output with and without the sweep is equal: %v", f, shown, bytes.Equal(a, b))
		}
	}
	if !showsPlotCurves("text", t.TempDir()) {
		t.Error("--out writes report.json and the rounds plots: it needs the sweep")
	}
	// diff: head with and without the sweep against the same base.
	base := price(false)
	base.Workloads = base.Workloads[1:]
	dw, dn := diff.Compare(base, with), diff.Compare(base, without)
	for format, render := range map[string]func(diff.Result) ([]byte, error){
		"markdown": func(r diff.Result) ([]byte, error) { return diff.Markdown(r, diff.Options{}) },
		"text":     diff.Text,
		"json":     diff.JSON,
	} {
		a, err := render(dw)
		if err != nil {
			t.Fatal(err)
		}
		b, err := render(dn)
		if err != nil {
			t.Fatal(err)
		}
		if shown := format == "json"; shown == bytes.Equal(a, b) {
			t.Errorf("diff --format %s: computes the sweep %v, yet the output with and without it is equal: %v", format, shown, bytes.Equal(a, b))
		}
	}
}
