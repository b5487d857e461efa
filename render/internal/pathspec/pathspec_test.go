package pathspec

import (
	"strings"
	"testing"
)

func TestWildmatch(t *testing.T) {
	for _, c := range []struct {
		pattern, text string
		want          bool
	}{
		{"*", "a/b/c", true},
		{"a*c", "a/b/c", true},
		{"a?c", "a/c", true},
		{"a\\*c", "a*c", true},
		{"a\\*c", "abc", false},
		{"[a-c]x", "bx", true},
		{"[^a-c]x", "dx", true},
		{"[!a-c]x", "ax", false},
		{"[]]", "]", true},
		{"[[:digit:]]", "7", true},
		{"[[:alpha:]]", "7", false},
		{"[[:bogus:]]", "7", false},
		{"[abc", "a", false},
		{"abc\\", "abc", false},
		{"*.yaml", "x.yml", false},
		{"**/*.json", "a/b/c.json", true},
		{"*a*a*a*a*a*a*a*b", strings.Repeat("a", 200), false},
	} {
		if got := wildmatch(c.pattern, c.text); got != c.want {
			t.Errorf("wildmatch(%q, %q) = %v, want %v", c.pattern, c.text, got, c.want)
		}
	}
}
