package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
)

// smallWorkloads writes a report of n copies of the specimen's
// workloads (some 2.6 KB each, where capreport writes some 15 KB for a
// real autoscaler: the most autoscalers a bound can hold), their ids
// numbered from first.
func smallWorkloads(t *testing.T, path string, first, n int) int64 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "report", "testdata", "TestJSON", "specimen.golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	specimen := doc["workloads"].([]any)
	ws := make([]any, n)
	for i := range ws {
		w := map[string]any{}
		for k, v := range specimen[i%len(specimen)].(map[string]any) {
			w[k] = v
		}
		w["id"] = fmt.Sprintf("%s-%d", w["id"], first+i)
		ws[i] = w
	}
	doc["workloads"] = ws
	if b, err = json.Marshal(doc); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return int64(len(b))
}

// TestReportCommandsAtTheBound: the commands that read saved reports,
// given reports of many small workloads near --max-report-bytes, hold a
// heap of a few times the bytes they read (83, 107 and 91 MiB for 29 MiB
// here), not the body of every autoscaler's details as well (summary and
// diff reached 178 and 189 MiB; at the 256 MiB default, 1.7 and 1.1 GB
// resident).
func TestReportCommandsAtTheBound(t *testing.T) {
	dir := t.TempDir()
	one := filepath.Join(dir, "one.json")
	size := smallWorkloads(t, one, 0, 12000)
	head, base := filepath.Join(dir, "head.json"), filepath.Join(dir, "base.json")
	halves := smallWorkloads(t, head, 0, 6000) + smallWorkloads(t, base, 50000, 6000)
	bound := "--max-report-bytes=" + fmt.Sprint(32<<20)
	t.Setenv("GODEBUG", "gctrace=1") // the heap at each collection, on stderr
	for _, c := range []struct {
		name string
		read int64
		args []string
	}{
		{"summary", size, []string{"summary", bound, "--report", one}},
		{"diff", halves, []string{"diff", "--base-json", base, "--head-json", head}},
		{"merge", size, []string{"merge", bound, one}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runBounded(t, dir, "", c.args...)
			if r.code != cmdutil.ExitOK && r.code != cmdutil.ExitFail {
				t.Fatalf("exit %d: %s", r.code, r.errOut)
			}
			peak := peakHeap(t, r.errOut)
			if peak > 5*c.read {
				t.Errorf("the heap reached %d MiB reading %d MiB of reports: more than 5 times", peak>>20, c.read>>20)
			}
		})
	}
}

// gcLine is a line of GODEBUG=gctrace=1: "…, 4->4->1 MB, 5 MB goal, …",
// the heap when the collection started, when it ended, and what was live.
var gcLine = regexp.MustCompile(`, (\d+)->(\d+)->\d+ MB, `)

// peakHeap is the largest heap a gctrace on stderr shows, in bytes.
func peakHeap(t *testing.T, stderr string) int64 {
	t.Helper()
	peak, n := int64(0), 0
	for _, m := range gcLine.FindAllStringSubmatch(stderr, -1) {
		for _, v := range m[1:3] {
			mb, _ := strconv.ParseInt(v, 10, 64)
			peak = max(peak, mb<<20)
		}
		n++
	}
	if n == 0 {
		t.Fatalf("no collection traced on stderr:\n%.2000s", stderr)
	}
	return peak
}
