package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/internal/inert"
	"github.com/capreport/capreport/internal/testutil"
	"github.com/capreport/capreport/report"
	"github.com/capreport/capreport/report/artifact"
)

// The untrusted-report property (report/artifact's tests and fuzz
// targets) is held on the bodies inert.Bodies renders; comment github
// renders these very bodies from what artifact.Decode returns (as
// ReadReportLimited reads it), for every hostile string in every field.
func TestCommentBodiesAreInertBodies(t *testing.T) {
	v := inert.NewValidator(t)
	for _, s := range inert.Hostile() {
		for bit := uint(0); bit < 16; bit++ {
			r, err := artifact.Decode("report.json", inert.Marshal(t, inert.Report(s, 1<<bit)), v)
			if err != nil {
				continue // the tool's fields: refused, as report/artifact's tests want
			}
			base := *r
			base.Workloads = []contract.Workload{r.Workloads[0]}
			base.Workloads[0].Verdict = contract.VerdictPass
			base.Workloads[0].Findings = []contract.Finding{}
			got := [][]byte{
				(&loaded{head: r}).body("capreport", report.DefaultMaxChars, 0, "", "", nil),
				(&loaded{head: r, base: &base}).body("capreport", report.DefaultMaxChars, 0, "", "", nil),
			}
			for k, want := range inert.Bodies(r) {
				if !bytes.Equal(got[k], want) {
					t.Fatalf("%q, field %d: body %d differs from inert.Bodies:\n%s\n---\n%s", s, bit, k, got[k], want)
				}
			}
			if live := inert.LiveSource(got[0]); len(live) > 0 {
				t.Fatalf("%q, field %d: live in the comment: %s", s, bit, strings.Join(live, "; "))
			}
		}
	}
}

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
