package render

import (
	"strings"
	"testing"

	"github.com/capreport/capreport/check"
)

// A configured source that does not exist is one finding however many
// value sets name it, and its message carries no path of the machine.
func TestSourceMissingOnce(t *testing.T) {
	opts := DefaultOptions()
	opts.Sources = []SourceSpec{{Path: "charts/api", Name: "staging"}, {Path: "charts/api", Name: "prod"}}
	res := renderMem(t, nil, ".", opts)
	root := memRoot
	var got []check.Finding
	for _, f := range res.Findings {
		if f.Check == check.SourceMissing {
			got = append(got, f)
		}
	}
	if len(got) != 1 || strings.Contains(got[0].Message, root) || got[0].File() != "charts/api" {
		t.Errorf("findings %+v; want one, at charts/api, without %s", got, root)
	}
}
