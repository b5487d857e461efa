package analyze

import (
	"strconv"
	"testing"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render"
)

func TestUnfollowedBeside(t *testing.T) {
	nf := func(source, file string, line int, object, why string) check.Finding {
		return check.Finding{Check: check.GitOpsNotFollowed, Severity: check.SeverityWarning, Source: source, Location: check.At(file, line),
			Message: file + ":" + strconv.Itoa(line) + ": " + object + ": not followed: " + why}
	}
	findings := []check.Finding{
		nf("apps/a@Kustomization/ns/a", "apps/a/hr.yaml", 3, "HelmRelease ns/rel-a", "chart in a registry"),
		nf("apps/b", "apps/b/hr.yaml", 1, "HelmRelease rel-b", "no namespace"),
		nf("apps/c", "apps/c/hr.yaml", 1, "HelmRelease other/web", "elsewhere"),
		nf("apps/d", "apps/d/app.yaml", 2, "Application argocd/d", "another repository"),
		nf("apps/d", "apps/d/app.yaml", 9, "Application argocd/d2", "another repository"),
		// not in object.NotFollowed's form: left out
		{Check: check.GitOpsNotFollowed, Source: "apps/e", Location: check.At("apps/e/x.yaml", 1), Message: "something else"},
		{Check: check.GitOpsNotFollowed, Source: "apps/f", Location: check.At("apps/f/x.yaml", 1), Message: "apps/f/x.yaml:1: Kind with space/x: not followed: y"},
		{Check: check.GitOpsSubstitution, Source: "apps/g", Location: check.At("apps/g/x.yaml", 1), Message: "apps/g/x.yaml:1: HelmRelease g: not followed: y"},
	}
	u := newUnfollowed(findings)
	at := func(source, ns, target string) *Autoscaler {
		a := &Autoscaler{Namespace: ns, Origin: render.Origin{Source: source}}
		a.Target.Kind, a.Target.Name = "Deployment", target
		return a
	}
	for _, c := range []struct {
		name string
		a    *Autoscaler
		want string // "" for none
	}{
		{"own build", at("apps/a@Kustomization/ns/a", "ns", "x"), "HelmRelease ns/rel-a was not followed (chart in a registry)"},
		{"same directory, other render", at("apps/a", "ns", "x"), "HelmRelease ns/rel-a was not followed (chart in a registry)"},
		{"several", at("apps/d@Application/argocd/d", "", "x"), "Application argocd/d was not followed (another repository) (one of 2 GitOps objects not followed there)"},
		{"by name, object without namespace", at("elsewhere", "prod", "rel-b"), "HelmRelease rel-b was not followed (no namespace)"},
		{"by name, same namespace", at("elsewhere", "other", "web"), "HelmRelease other/web was not followed (elsewhere)"},
		{"by name, other namespace", at("elsewhere", "prod", "web"), ""},
		{"malformed findings left out", at("apps/e", "", "x"), ""},
		{"a name with a space is no object", at("apps/f", "", "x"), ""},
		{"other checks left out", at("apps/g", "", "g"), ""},
	} {
		got, ok := u.beside(c.a)
		if ok != (c.want != "") || got != c.want {
			t.Errorf("%s: beside = %q, %v; want %q", c.name, got, ok, c.want)
		}
	}
}
