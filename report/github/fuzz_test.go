package github

import (
	gh "github.com/google/go-github/v62/github"

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

// asciiLogin reports whether s could be a GitHub login: ASCII only.
func asciiLogin(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// FuzzOwnMarked: the sticky comment is found by its marker and its author;
// a comment by anyone else, or without the marker on its first line, is
// never taken, whatever its body or its author's login.
func FuzzOwnMarked(f *testing.F) {
	for _, s := range [][3]string{
		{"<!-- capreport -->\nold", "github-actions[bot]", "github-actions[bot]"},
		{"<!-- capreport -->\nold", "mallory", "alice"},
		{"<!-- capreport -->  \r\nold", "ALICE", "alice"},
		{"> <!-- capreport -->\nquoted", "alice", "alice"},
		{"<!-- capreport -->", "capbot[bot]", "capbot[bot]"},
		{"<!-- capreport -->\n", "kate", "kate"},
	} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, body, login, author string) {
		const marker = "<!-- capreport -->"
		cm := &gh.IssueComment{Body: gh.String(body), User: &gh.User{Login: gh.String(login)}}
		got := ownMarked(cm, marker, author)
		lines := strings.SplitN(body, "\n", 2)
		//lint:ignore SA6005 EqualFold folds non-ASCII runes (the bug this target found); both logins are ASCII here
		want := strings.TrimSpace(lines[0]) == marker && asciiLogin(login) && asciiLogin(author) && strings.ToLower(login) == strings.ToLower(author)
		if got != want {
			t.Fatalf("ownMarked(body %q, by %q, author %q) = %v, want %v", body, login, author, got, want)
		}
	})
}
