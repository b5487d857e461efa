package report

import (
	"strings"
	"testing"

	"github.com/capreport/capreport/contract"
)

// A measured assumption validates against the schema; one whose record
// lacks its query does not.
func TestSchemaMeasuredAssumption(t *testing.T) {
	r := specimenReport()
	w := &r.Workloads[0]
	w.Assumptions["deadTime"] = contract.Assumption{Value: "47s", From: "measured",
		Measured: &contract.Measured{Query: "q", Window: "7d", Quantile: 0.9, Samples: 312, At: "2026-12-01T10:00:00Z"}}
	doc, err := JSON(r, Options{Pretty: true}) // the edit below finds the query's line
	if err != nil {
		t.Fatal(err)
	}
	if err := validate(doc); err != nil {
		t.Fatalf("measured assumption rejected: %v", err)
	}
	bad := strings.Replace(string(doc), `"query": "q",`, "", 1)
	if bad == string(doc) {
		t.Fatal("test did not remove the query")
	}
	if err := validate([]byte(bad)); err == nil {
		t.Fatal("a measured record without its query validated")
	}
}
