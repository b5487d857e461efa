package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/internal/testutil"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestVerdictsGolden keeps, for review, every verdict capreport gives the
// real charts and overlays of ../shared/corpus (no annotations: nothing
// fails on defaults alone) and examples/shop (annotated: it fails as
// designed), each with the findings that decide it and what they rest on.
func TestVerdictsGolden(t *testing.T) {
	testutil.SkipIfShort(t)
	var b strings.Builder
	for _, dir := range corpusCases(t) {
		writeVerdicts(t, &b, "corpus/"+filepath.Base(dir), corpusArgs(dir))
	}
	writeVerdicts(t, &b, "examples/shop", []string{filepath.Join("..", "..", "examples", "shop"), "--format", "json", "--fail-on", "never"})
	testutil.Golden(t, filepath.Join("testdata", "verdicts.golden.txt"), []byte(b.String()), *update)
}

func writeVerdicts(t *testing.T, b *strings.Builder, name string, args []string) {
	t.Helper()
	out, stderr, code := capture(args...)
	if code != cmdutil.ExitOK {
		t.Fatalf("%s: exit %d: %s", name, code, stderr)
	}
	var r contract.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(b, "# %s\n", name)
	sort.Slice(r.Workloads, func(i, j int) bool { return r.Workloads[i].ID < r.Workloads[j].ID })
	for _, w := range r.Workloads {
		fmt.Fprintf(b, "%s %s", w.Verdict, w.ID)
		if w.VerdictReason != "" {
			fmt.Fprintf(b, " (%s)", w.VerdictReason)
		}
		b.WriteString("\n")
		for _, f := range w.Findings {
			if f.Severity == check.SeverityInfo || f.Ignored {
				continue
			}
			fmt.Fprintf(b, "  %s %s", f.Severity, f.Check)
			if len(f.RestsOn) > 0 {
				var on []string
				for _, r := range f.RestsOn {
					on = append(on, r.Assumption+"="+r.From)
				}
				fmt.Fprintf(b, " [%s]", strings.Join(on, " "))
			}
			b.WriteString("\n")
		}
	}
}

// --strict (failOnDefaults) restores failing on defaults.
func TestStrictFailsOnDefaults(t *testing.T) {
	dir := filepath.Join(testutil.Corpus(t), "podinfo-kustomize")
	if _, stderr, code := capture(dir); code != cmdutil.ExitOK {
		t.Errorf("without --strict: exit %d, want %d (the failure rests on the default overload): %s", code, cmdutil.ExitOK, stderr)
	}
	out, _, code := capture(dir, "--strict")
	if code != cmdutil.ExitFail || !strings.Contains(out, "fail") {
		t.Errorf("--strict: exit %d, want %d:\n%s", code, cmdutil.ExitFail, out)
	}
}
