package flux

import (
	"testing"

	"github.com/capreport/capreport/render/internal/yamldoc"
)

// Flux joins a source path as securejoin does: ".." stops at the root.
func TestFluxPath(t *testing.T) {
	for in, want := range map[string]string{"./apps/prod": "apps/prod", "apps": "apps", "": "", "/x": "x", "../../etc": "etc", "a/../../b": "b"} {
		if got := CleanPath(in); got != want {
			t.Errorf("CleanPath(%q) = %q, want %q", in, got, want)
		}
	}
}

// yamldoc.HasText must see every "$" the printed YAML holds: in a key, a
// nested string, a list; never in a number or a boolean.
func TestHasDollar(t *testing.T) {
	for _, tc := range []struct {
		doc  map[string]any
		want bool
	}{
		{map[string]any{"a": "x", "b": int64(1), "c": true, "d": nil, "e": 1.5}, false},
		{map[string]any{"a": map[string]any{"b": []any{"x", map[string]any{"c": "${V}"}}}}, true},
		{map[string]any{"a": map[string]any{"$k": "v"}}, true},
		{map[string]any{"a": []any{int64(1), "$"}}, true},
	} {
		if got := yamldoc.HasText(tc.doc, "$"); got != tc.want {
			t.Errorf("HasText(%v) = %v, want %v", tc.doc, got, tc.want)
		}
	}
}
