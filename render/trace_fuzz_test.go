package render

import (
	"regexp"
	"testing"
)

// declaresKindOracle is declaresKind written as a regular expression: a
// line that is "kind:" and the kind, maybe indented, in a list item,
// quoted, or followed by a comment.
func declaresKindOracle(kind string) *regexp.Regexp {
	return regexp.MustCompile(`(?m)^[ \t-]*kind:["' \t]*` + regexp.QuoteMeta(kind) + `["' \t\r]*(#.*)?$`)
}

// FuzzDeclaresKind holds the byte scan that predicts which Kustomize
// builds need tracing to its regular-expression oracle, on any text.
func FuzzDeclaresKind(f *testing.F) {
	for _, s := range []string{
		"kind: HorizontalPodAutoscaler\n", "  - kind: 'ScaledObject' # x\n", "kind:Application\r\n",
		"names:\n  kind: ApplicationSet\n", "description: kind: HorizontalPodAutoscaler\n", `{"kind": "Application"}`,
		"kind: Application\nkind: ApplicationSet", "kind: \"HelmRelease\"\"\n", "--kind: Kustomization",
	} {
		f.Add(s)
	}
	oracles := map[string]*regexp.Regexp{}
	for _, k := range locatedKinds {
		oracles[k.kind] = declaresKindOracle(k.kind)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for kind, re := range oracles {
			if got, want := declaresKind([]byte(text), []byte(kind)), re.MatchString(text); got != want {
				t.Fatalf("declaresKind(%q, %s) = %v, the oracle says %v", text, kind, got, want)
			}
		}
	})
}
