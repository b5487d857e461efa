package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/internal/testutil"
)

const measuredTestConfig = `workloads:
  - namespace: shop
    kind: Deployment
    name: api
    deadTime: 47s
    measured:
      deadTime: {query: "q", window: 7d, quantile: 0.9, samples: 312, at: 2026-12-01T10:00:00Z}
`

// Where a value's origin is shown (list, explain, the Markdown details),
// a measured value says how it was measured.
func TestMeasuredOriginShown(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteTree(t, dir, map[string]string{"app.yaml": readMeasuredApp(t), ".capreport.yaml": measuredTestConfig})
	const want = "measured p90 over 7d, 312 pods, 2026-12-01"
	for _, args := range [][]string{
		{"list", dir, "--root", dir},
		{"explain", "shop/HorizontalPodAutoscaler/api", dir, "--root", dir},
		{dir, "--root", dir, "--format", "markdown", "--fail-on", "never"},
	} {
		var out, errOut bytes.Buffer
		run(args, &cmdutil.IOStreams{Out: &out, ErrOut: &errOut})
		text := out.String() + errOut.String()
		if !strings.Contains(text, want) {
			t.Errorf("%v: output lacks %q:\n%s", args, want, text)
		}
		if !strings.Contains(text, "measured") || strings.Count(text, want) != 1 {
			t.Errorf("%v: want the summary once, beside deadTime:\n%s", args, text)
		}
	}
}

// readMeasuredApp is the shared fixture of the measured-provenance tests.
func readMeasuredApp(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "measured", "app.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
