package merge_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/internal/inert"
	"github.com/capreport/capreport/report"
	"github.com/capreport/capreport/report/merge"
)

// mergeInput is one report of FuzzMerge, decoded as merge decodes it, and
// its document: MergeInput's report, or nil when the schema would
// refuse it (the tool's name, say), which inert.BuiltValid tells without the
// schema check.
func mergeInput(t testing.TB, name, s string, mask uint16, extra, same bool, other *contract.Report) (*contract.Report, []byte) {
	doc := inert.Marshal(t, inert.MergeInput(s, mask, extra, same, other))
	r := inert.DecodeBuilt(t, name, doc)
	if !inert.BuiltValid(r) {
		return nil, nil
	}
	return r, doc
}

// FuzzMerge: two reports that pass the schema merge into one that passes
// it too, with every workload id once, every source and finding kept, and
// no larger than its inputs; a conflict is an error only without --prefer,
// naming both files; never a panic. The reports are built from the fuzzed
// strings, as the untrusted-report targets build theirs: small inputs keep
// the fuzzer fuzzing, not minimizing kilobytes of JSON.
func FuzzMerge(f *testing.F) {
	for i, s := range inert.Hostile() {
		f.Add(s, "x", uint16(1)<<(i%16), uint16(1)<<5, uint8(i))
	}
	v := inert.NewValidator(f)
	f.Fuzz(func(t *testing.T, sa, sb string, maskA, maskB uint16, shape uint8) {
		ra, da := mergeInput(t, "a.json", sa, maskA, shape&1 != 0, false, nil)
		if ra == nil {
			return
		}
		rb, db := mergeInput(t, "b.json", sb, maskB, shape&2 != 0, shape&4 != 0, ra)
		if rb == nil {
			return
		}
		prefer := []string{merge.PreferFirst, merge.PreferLast, merge.PreferNone}[int(shape>>3)%3]
		checkMerge(t, v, [2]*contract.Report{ra, rb}, [2][]byte{da, db}, prefer)
	})
}

// checkMerge is FuzzMerge's property for two reports and their documents.
// The merged report is the one schema check of an execution: the inputs
// pass it by construction (inert.BuiltValid), and are checked only when the
// merged report fails, to tell a merge bug from a construction the schema
// has outgrown.
func checkMerge(t *testing.T, v *report.Validator, rs [2]*contract.Report, docs [2][]byte, prefer string) {
	ra, rb := rs[0], rs[1]
	names := []string{"a.json", "b.json"}
	in := len(docs[0]) + len(docs[1])
	m, _, err := merge.Reports([]contract.Report{*ra, *rb}, names, prefer)
	if err != nil {
		if prefer != merge.PreferNone || !strings.Contains(err.Error(), "a.json") || !strings.Contains(err.Error(), "b.json") {
			t.Fatalf("merge --prefer %q: %v (a conflict is an error only without --prefer, naming both files)", prefer, err)
		}
		return
	}
	out := inert.Marshal(t, m)
	if err := v.Validate(out); err != nil {
		for i, doc := range docs {
			if ierr := v.Validate(doc); ierr != nil {
				t.Fatalf("%s, built valid, fails the schema (inert.BuiltValid is behind it): %v", names[i], ierr)
			}
		}
		t.Fatalf("the merged report fails the schema: %v\n%s", err, out)
	}
	ids := map[string]bool{}
	for _, w := range m.Workloads {
		if ids[w.ID] {
			t.Fatalf("workload %s twice", w.ID)
		}
		ids[w.ID] = true
	}
	for _, w := range append(ra.Workloads, rb.Workloads...) {
		if !ids[w.ID] {
			t.Fatalf("workload %s lost", w.ID)
		}
	}
	if len(m.Findings) != len(ra.Findings)+len(rb.Findings) || len(m.Sources) != len(ra.Sources)+len(rb.Sources) {
		t.Fatalf("findings or sources lost: %d+%d -> %d", len(ra.Findings), len(rb.Findings), len(m.Findings))
	}
	if len(out) > in+1024 {
		t.Fatalf("merged %d bytes from %d", len(out), in)
	}
	var back contract.Report
	if err := json.Unmarshal(out, &back); err != nil || contract.Summarize(&back) != m.Summary {
		t.Fatalf("the merged summary is not the workloads' (%v): %+v", err, m.Summary)
	}
}
