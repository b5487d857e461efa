package rules

import (
	"testing"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/contract"
)

// Severity follows provenance: a finding whose deciding assumptions
// include a built-in default is at most a warning and the verdict is warn,
// "rests on defaults"; stated or measured assumptions, or failOnDefaults,
// keep it an error; a finding that needs no assumption keeps its severity.
func TestSeverityFollowsProvenance(t *testing.T) {
	short := app{name: "short", target: 50, min: 2, max: 4}
	stated := app{name: "short", target: 50, min: 2, max: 4,
		annotations: measured("capreport.io/overload", "3x,10x", "capreport.io/demand", "100")}
	cases := []struct {
		name, cfg   string
		doc         string
		check       string
		severity    string
		verdict     string
		reason      string
		defaultedOn string // an assumption RestsOn must show as default
	}{
		{"defaults only", "", short.yaml(), check.MaxReplicasBelowNeed, check.SeverityWarning, contract.VerdictWarn, contract.ReasonRestsOnDefaults, "overload"},
		{"dead time and pod rate stated, overload defaulted", "", app{name: "short", target: 50, min: 2, max: 4, annotations: measured()}.yaml(),
			check.MaxReplicasBelowNeed, check.SeverityWarning, contract.VerdictWarn, contract.ReasonRestsOnDefaults, "overload"},
		{"failOnDefaults", "failOnDefaults: true\n", short.yaml(), check.MaxReplicasBelowNeed, check.SeverityError, contract.VerdictFail, "", "overload"},
		{"every deciding assumption stated", "", stated.yaml(), check.MaxReplicasBelowNeed, check.SeverityError, contract.VerdictFail, "", ""},
		{"dead band needs no assumption", "", app{name: "short", target: 95}.yaml(), check.DeadBand, check.SeverityError, contract.VerdictFail, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := workload(t, repoOf(t, c.cfg, c.doc), "t/HorizontalPodAutoscaler/short")
			var f *contract.Finding
			for i := range w.Findings {
				if w.Findings[i].Check == c.check {
					f = &w.Findings[i]
				}
			}
			if f == nil {
				t.Fatalf("%s not raised: %v", c.check, checkIDs(w))
			}
			if f.Severity != c.severity || w.Verdict != c.verdict || w.VerdictReason != c.reason {
				t.Errorf("severity %s verdict %s (%q), want %s %s (%q)", f.Severity, w.Verdict, w.VerdictReason, c.severity, c.verdict, c.reason)
			}
			defaulted := ""
			for _, b := range f.RestsOn {
				if b.From == "default" && b.Assumption == c.defaultedOn {
					defaulted = b.Assumption
				}
			}
			if defaulted != c.defaultedOn || f.RestsOnDefaults != (c.defaultedOn != "") {
				t.Errorf("restsOn %+v (defaults %v), want %q among the defaults", f.RestsOn, f.RestsOnDefaults, c.defaultedOn)
			}
			if c.check == check.DeadBand && len(f.RestsOn) != 0 {
				t.Errorf("dead-band rests on %+v", f.RestsOn)
			}
		})
	}
}

// A check that is a warning by default is not "capped" by a default, so
// it does not make the verdict "rests on defaults".
func TestCappedOnlyDemotedErrors(t *testing.T) {
	for _, c := range []struct {
		f    contract.Finding
		want bool
	}{
		{contract.Finding{Check: check.MaxReplicasBelowNeed, Severity: check.SeverityWarning, RestsOnDefaults: true}, true},
		{contract.Finding{Check: check.MaxReplicasBelowNeed, Severity: check.SeverityError, RestsOnDefaults: true}, false},
		{contract.Finding{Check: check.StandingDelayOverTarget, Severity: check.SeverityWarning, RestsOnDefaults: true}, false},
		{contract.Finding{Check: check.MaxReplicasBelowNeed, Severity: check.SeverityWarning}, false},
	} {
		if got := c.f.Capped(); got != c.want {
			t.Errorf("%+v: capped %v, want %v", c.f, got, c.want)
		}
	}
}
