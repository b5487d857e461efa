package helmkeys

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"text/template/parse"
)

// FuzzCheapKeys: the key rewrite never panics; what it rewrites parsed
// before and parses after, with as many lines; it is done in one pass
// (its output has nothing left to rewrite); and it changed nothing but
// the key calls (checkRewrite).
func FuzzCheapKeys(f *testing.F) {
	for _, s := range []string{
		`{{- $ca := genCA "x" 365 }}{{ $c := genSignedCert "a" nil (list .a .b) 365 $ca }}`,
		"{{ genPrivateKey `rsa` | b64enc }}{{ genPrivateKey .Values.t }}",
		`{{ if .a }}{{ (genCA "a" 1).Cert }}{{ else with genSelfSignedCert "a" nil nil 365 }}{{ . }}{{ end }}`,
		`{{ define "x" }}{{ genSignedCert (tpl .Values.h .) nil nil 365 (genCA "b" 1) }}{{ end }}{{ template "x" (genCA "b" 1) }}`,
		"{{- /* genCA \"x\" 1 */ -}}\n{{- genCA\n \"x\" (len (list \")\" `(` ')')) -}}",
		`{{ "x" | genCA 365 }}{{ genCA "x" }}{{ print "genCA \"x\" 365" }}`,
		`{{ genCA "x" $.Values.days }}{{ genSignedCert "a" nil nil 365 $x.ca.inner }}`,
		`{{ genCAWithKey "x" 365 (genPrivateKey "rsa") }}{{ genCA "x" (dict "d" 1).d }}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, ok := cheapKeysTemplate("f.yaml", []byte(in))
		if !ok {
			return
		}
		checkRewrite(t, in, string(out))
		if again, ok := cheapKeysTemplate("f.yaml", out); ok {
			t.Fatalf("a second pass rewrote %q to %q", out, again)
		}
	})
}

var anyKeyType = regexp.MustCompile("genPrivateKey (\"(?:[^\"\\\\]|\\\\.)*\"|`[^`]*`)")

// keyShape is a template's trees printed with the key calls made alike:
// any literal key type, and no WithKey form or the key argument it takes.
// The text between actions is printed in hex first, so that the
// patterns, which read the printed tree, cannot match across the edge of
// an action (text ending in `genPrivateKey "` before an action holding a
// quote).
func keyShape(t *testing.T, text string) map[string]string {
	t.Helper()
	trees, err := parseTemplate("f.yaml", text)
	if err != nil {
		t.Fatalf("%q does not parse: %v", text, err)
	}
	shape := map[string]string{}
	for name, tree := range trees {
		hideText(tree.Root)
		s := anyKeyType.ReplaceAllString(tree.Root.String(), "genPrivateKey K")
		s = strings.ReplaceAll(s, " (genPrivateKey K)", "")
		shape[name] = strings.ReplaceAll(s, "WithKey", "")
	}
	return shape
}

// hideText replaces the text nodes under n with their bytes in hex.
func hideText(n parse.Node) {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return
		}
		for _, c := range n.Nodes {
			hideText(c)
		}
	case *parse.TextNode:
		n.Text = []byte(fmt.Sprintf("<%x>", n.Text))
	case *parse.IfNode:
		hideText(n.List)
		hideText(n.ElseList)
	case *parse.RangeNode:
		hideText(n.List)
		hideText(n.ElseList)
	case *parse.WithNode:
		hideText(n.List)
		hideText(n.ElseList)
	}
}

// checkRewrite: in and its rewrite out both parse, to the same trees but
// for the key calls, on as many lines.
func checkRewrite(t *testing.T, in, out string) {
	t.Helper()
	if strings.Count(in, "\n") != strings.Count(out, "\n") {
		t.Fatalf("the rewrite of %q changed the number of lines: %q", in, out)
	}
	a, b := keyShape(t, in), keyShape(t, out)
	if len(a) != len(b) {
		t.Fatalf("%q: %d trees, rewritten %d", in, len(a), len(b))
	}
	for name, s := range a {
		if b[name] != s {
			t.Fatalf("%q: tree %s changed beyond the key calls:\n  %s\n  %s", in, name, s, b[name])
		}
	}
}
