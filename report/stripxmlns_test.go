package report

import (
	"regexp"
	"testing"
)

// xmlnsAttr is the regexp stripXMLNS stands for.
var xmlnsAttr = regexp.MustCompile(`\s+xmlns(:[A-Za-z]+)?\s*=\s*"[^"]*"`)

// stripXMLNS removes exactly what the regexp it replaced removed.
func FuzzStripXMLNS(f *testing.F) {
	for _, s := range []string{
		"<svg width=\"1\"\n\txmlns=\"http://www.w3.org/2000/svg\"\n\txmlns:xlink=\"http://www.w3.org/1999/xlink\">",
		`axmlns="b xmlns="c"`, `<g xmlns = "x" >`, `xmlns="a"`, ` xmlns:="a"`, ` xmlns:a1="b"`, "  \f xmlns:q='x' xmlns=\"\"",
		` xmlnsxmlns="a" xmlns="b`, ``,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := stripXMLNS(s), xmlnsAttr.ReplaceAllString(s, ""); got != want {
			t.Fatalf("stripXMLNS(%q) = %q, the regexp gives %q", s, got, want)
		}
	})
}
