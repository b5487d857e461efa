package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/internal/genrepo"
	"github.com/capreport/capreport/pipeline"
	"github.com/capreport/capreport/rules"
)

// TestMaxReportBytesHolds10000Autoscalers: the default --max-report-bytes
// must let summary, comment and issue read the compact report of a
// 10,000-autoscaler repository, with room to spare. The size per
// autoscaler is measured on a generated repository (the same mix as the
// benchmarks; a real 10,000-autoscaler run wrote 156 MB), so a format
// change that bloats the report fails here rather than in a user's CI.
func TestMaxReportBytesHolds10000Autoscalers(t *testing.T) {
	const n = 40
	dir := filepath.Join(t.TempDir(), "repo")
	if err := genrepo.Write(dir, n); err != nil {
		t.Fatal(err)
	}
	rp, err := pipeline.Load(context.Background(), []string{dir}, pipeline.Settings{Isolate: true})
	if err != nil {
		t.Fatal(err)
	}
	r, err := rules.Build(context.Background(), dir, rp.Rendered, rp.Inventory, rp.Config, rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := cmdutil.RenderFormat(*r, "json", cmdutil.FormatOptions{})
	if err != nil {
		t.Fatal(err)
	}
	perAutoscaler := len(b) / n
	if need := 10000 * perAutoscaler * 5 / 4; need > cmdutil.DefaultMaxReportBytes {
		t.Errorf("a compact report takes %d bytes per autoscaler: 10,000 (+25 %%) need %d, over the default --max-report-bytes %d",
			perAutoscaler, need, cmdutil.DefaultMaxReportBytes)
	}
	pretty, err := cmdutil.RenderFormat(*r, "json", cmdutil.FormatOptions{Pretty: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(pretty) < 2*len(b) {
		t.Errorf("pretty %d bytes, compact %d: is the default still compact?", len(pretty), len(b))
	}
}
