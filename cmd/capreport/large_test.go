package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/internal/testutil"
)

// TestOutOfAThousandAutoscalers: --out on a repository of 1,000 priced
// autoscalers (examples/shop's three, each repeated in 40 namespaces)
// writes an HTML page under 2 MB, filterable, and plot files only for the
// autoscalers the reports show: each file is inlined in the page or
// linked from report.md, and there are dozens, not 4,000 (issue 30).
func TestOutOfAThousandAutoscalers(t *testing.T) {
	testutil.SkipIfShort(t)
	code, out, errOut := runArgs(t, filepath.Join(testutil.RepoRoot(t), "examples", "shop"), "--format", "json", "--fail-on", "never")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var shop contract.Report
	if err := json.Unmarshal([]byte(out), &shop); err != nil {
		t.Fatal(err)
	}
	r := shop
	r.Workloads = nil
	for i := range 1000 {
		w := shop.Workloads[i%len(shop.Workloads)]
		ns := fmt.Sprintf("team-%02d", i%40)
		w.Autoscaler.Namespace = ns
		w.Autoscaler.Name = fmt.Sprintf("%s-%d", w.Autoscaler.Name, i)
		w.ID = fmt.Sprintf("%s/%s/%s", ns, w.Autoscaler.Kind, w.Autoscaler.Name)
		r.Workloads = append(r.Workloads, w)
	}
	dir := t.TempDir()
	if err := cmdutil.WriteOutDir(dir, r, false, nil); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	if len(page) >= 2_000_000 {
		t.Errorf("report.html is %d bytes, want under 2 MB", len(page))
	}
	if !strings.Contains(string(page), `<option value="n39">team-39 (25)</option>`) || !strings.Contains(string(page), `<select id="fv">`) {
		t.Errorf("the page has no filter by verdict and namespace")
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	files, _ := os.ReadDir(filepath.Join(dir, "plots"))
	if len(files) == 0 || len(files) > 100 {
		t.Errorf("%d plot files, want a few dozen for the autoscalers shown", len(files))
	}
	// Each file is shown: linked from report.md, or its workload's
	// details in the page hold inlined plots.
	inlined := map[string]bool{}
	for _, w := range r.Workloads {
		at := strings.Index(string(page), "<b>"+w.ID+"</b>")
		if at < 0 {
			continue
		}
		rest := string(page[at:])
		if end := strings.Index(rest, "</details>"); end > 0 && strings.Contains(rest[:end], `<figure class="plot">`) {
			inlined[fmt.Sprintf("%s-%s-%s-", w.Autoscaler.Namespace, w.Autoscaler.Kind, w.Autoscaler.Name)] = true
		}
	}
	for _, f := range files {
		name := f.Name()
		svg := strings.TrimSuffix(name, ".png") + ".svg"
		prefix := name[:strings.LastIndexByte(name, '-')+1]
		if !strings.Contains(string(md), "plots/"+svg) && !inlined[prefix] {
			t.Errorf("%s is written but neither report shows it", name)
		}
	}
	if n := strings.Count(string(page), `<figure class="plot">`); n == 0 || n > len(files) {
		t.Errorf("%d plots inlined in the page for %d files", n, len(files))
	}
}
