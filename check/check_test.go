package check

import (
	"strings"
	"testing"

	"github.com/capreport/capreport/internal/testutil"
)

// declaredIDs are the check IDs check.go declares: every string constant
// but the severities.
func declaredIDs(t *testing.T) map[string]string {
	t.Helper()
	return testutil.StringConsts(t, "check.go", SeverityError, SeverityWarning, SeverityInfo)
}

// Every check any layer can raise has a complete registry entry (SARIF
// rules, the README table and help text come from it), no ID is listed
// twice, and the registry holds nothing that is not declared.
func TestRegistryCoversEveryCheck(t *testing.T) {
	ids := declaredIDs(t)
	if len(ids) < 60 {
		t.Fatalf("only %d IDs declared: %v", len(ids), ids)
	}
	for name, id := range ids {
		info, ok := Lookup(id)
		if !ok {
			t.Errorf("check %s (%q) has no registry entry", name, id)
			continue
		}
		if info.Title == "" || info.Description == "" || info.Remediation == "" {
			t.Errorf("check %q: incomplete entry %+v", id, info)
		}
		switch info.Severity {
		case SeverityError, SeverityWarning, SeverityInfo:
		default:
			t.Errorf("check %q: severity %q", id, info.Severity)
		}
	}
	seen := map[string]bool{}
	for _, c := range All() {
		if seen[c.ID] {
			t.Errorf("check %q listed twice", c.ID)
		}
		seen[c.ID] = true
	}
	if len(seen) != len(ids) {
		t.Errorf("registry has %d checks, check.go declares %d", len(seen), len(ids))
	}
}

// Lookup fails closed: an ID that is not a check finds nothing.
func TestLookupUnknown(t *testing.T) {
	for _, id := range []string{"", "no-such-check", "Dead-Band", " dead-band"} {
		if info, ok := Lookup(id); ok || info.ID != "" || info.Severity != "" {
			t.Errorf("Lookup(%q) = %+v, %v", id, info, ok)
		}
	}
}

// Raise fails closed: an unregistered ID becomes an unknown-check error
// that names it, never a finding without a severity.
func TestRaise(t *testing.T) {
	f := Raise(DeadBand, "g = %.2f", 1.05)
	if f.Check != DeadBand || f.Severity != SeverityError || f.Message != "g = 1.05" || f.Remediation == "" {
		t.Errorf("Raise(dead-band) = %+v", f)
	}
	f = Raise("no-such-check", "x %d", 1)
	if f.Check != UnknownCheck || f.Severity != SeverityError || !strings.Contains(f.Message, `"no-such-check"`) || !strings.HasSuffix(f.Message, ": x 1") {
		t.Errorf("Raise(no-such-check) = %+v", f)
	}
}

// NewRegistry refuses what would make a lookup ambiguous or an entry
// unprintable, naming the check.
func TestNewRegistryRefuses(t *testing.T) {
	good := Info{ID: "a", Title: "A", Severity: SeverityWarning, Description: "d", Remediation: "r", RaisedBy: []string{"pkg.F"}}
	with := func(edit func(*Info)) Info { c := good; edit(&c); return c }
	for _, tc := range []struct {
		name  string
		infos []Info
		want  string
	}{
		{"duplicate", []Info{good, with(func(c *Info) { c.Title = "other" })}, `check "a" registered twice`},
		{"no ID", []Info{with(func(c *Info) { c.ID = "" })}, "without an ID"},
		{"severity", []Info{with(func(c *Info) { c.Severity = "fatal" })}, `severity "fatal"`},
		{"no title", []Info{with(func(c *Info) { c.Title = "" })}, "title, description and remediation"},
		{"no remediation", []Info{with(func(c *Info) { c.Remediation = "" })}, "title, description and remediation"},
		{"no raiser", []Info{with(func(c *Info) { c.RaisedBy = nil })}, "no function raises it"},
	} {
		r, err := NewRegistry(tc.infos)
		if err == nil || !strings.Contains(err.Error(), tc.want) || r != nil {
			t.Errorf("%s: NewRegistry = %v, %v; want an error with %q", tc.name, r, err, tc.want)
		}
	}
	r, err := NewRegistry([]Info{good, with(func(c *Info) { c.ID = "b" })})
	if err != nil {
		t.Fatal(err)
	}
	if all := r.All(); len(all) != 2 || all[0].ID != "a" || all[1].ID != "b" {
		t.Errorf("All = %+v", all)
	}
	// The registry keeps its own copy: editing what All returned changes nothing.
	r.All()[0].RaisedBy[0] = "edited"
	if c, _ := r.Lookup("a"); c.RaisedBy[0] != "pkg.F" {
		t.Errorf("registry changed through All: %+v", c)
	}
}
