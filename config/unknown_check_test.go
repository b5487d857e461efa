package config_test

import (
	"context"
	"testing"

	"github.com/capreport/capreport/analyze"
	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/config"
	"github.com/capreport/capreport/rules"
)

// TestUnknownCheckNamesItsLine: the unknown-check finding of a typo in
// checks.include or checks.exclude points at the typo's own line. (Only
// included checks are reported, so unknown-check is included too.)
func TestUnknownCheckNamesItsLine(t *testing.T) {
	data := "checks:\n  include:\n    - unknown-check\n    - dead-bnad\n  exclude: [assumtion-default]\n"
	cfg, err := config.Parse(".capreport.yaml", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	r, err := rules.Build(context.Background(), ".", nil, &analyze.Inventory{}, cfg, rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, f := range r.Findings {
		if f.Check != check.UnknownCheck {
			continue
		}
		if f.Location == nil || f.Location.File != ".capreport.yaml" {
			t.Fatalf("%s: location %+v, want the configuration file", f.Message, f.Location)
		}
		got[f.Message] = f.Location.Line
	}
	want := map[string]int{
		`checks.include names "dead-bnad", which is not a check`:         4,
		`checks.exclude names "assumtion-default", which is not a check`: 5,
	}
	if len(got) != len(want) {
		t.Fatalf("unknown-check findings %v, want %v", got, want)
	}
	for msg, line := range want {
		if got[msg] != line {
			t.Errorf("%s: line %d, want %d", msg, got[msg], line)
		}
	}
}
