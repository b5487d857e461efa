package action

import (
	"bytes"
	"strings"
	"testing"

	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/internal/inert"
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
