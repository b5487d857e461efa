package main

import (
	"strings"
	"testing"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/internal/testutil"
)

// TestSchemaErrorsBounded: an artifact with 140,000 broken workloads gets
// a short error, not a line per workload.
func TestSchemaErrorsBounded(t *testing.T) {
	testutil.SkipIfShort(t)
	doc := `{"schemaVersion": "` + contract.SchemaVersion + `", "tool": {"name": "capreport", "version": "t"}, "root": "r",
"summary": {"autoscalers": 0, "pass": 0, "warn": 0, "fail": 0, "unpriced": 0, "errors": 0, "warnings": 0},
"sources": [], "findings": [], "workloads": [` + strings.TrimSuffix(strings.Repeat(`{"id": 1},`, 140000), ",") + `]}`
	env := map[string]string{}
	r := runGitHub(t, env, "summary", "--report", writeTemp(t, "big.json", doc), "--summary", "-")
	if r.code != cmdutil.ExitError {
		t.Fatalf("exit %d", r.code)
	}
	if n := strings.Count(r.errOut, "\n"); n > 25 || !strings.Contains(r.errOut, "more") || !strings.Contains(r.errOut, "/workloads/0") {
		t.Errorf("%d stderr lines:\n%.2000s", n, r.errOut)
	}
}
