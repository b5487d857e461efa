package github

import (
	"strings"
	"testing"
)

// FuzzAcceptedPermissions: any header GitHub (or a proxy) sends turns into
// workflow spelling without panicking, and names only what it was given.
func FuzzAcceptedPermissions(f *testing.F) {
	for _, s := range []string{"pull_requests=write", "issues=write; pull_requests=write", "contents=read,metadata=read", "", ";;", "=", "a=b=c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		got := acceptedPermissions(h)
		if !strings.Contains(h, "=") && got != "" {
			t.Errorf("%q -> %q names a permission it was not given", h, got)
		}
	})
}

// FuzzMarker: a body is accepted only with a marker on its first line and
// within the limit, whatever it holds.
func FuzzMarker(f *testing.F) {
	for _, s := range []string{"<!-- capreport -->\nbody", "", "<!---->", "x\n<!-- capreport -->", "<!-- a -->\r\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		m, err := Marker(body)
		if err != nil {
			return
		}
		if !strings.HasPrefix(m, "<!--") || !strings.HasSuffix(m, "-->") || strings.ContainsAny(m, "\n") || firstLine(body) != m {
			t.Errorf("Marker(%q) = %q", body, m)
		}
	})
}
