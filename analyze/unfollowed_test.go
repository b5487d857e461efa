package analyze

import (
	"testing"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render"
)

func TestUnfollowedBeside(t *testing.T) {
	nf := func(source, kind, ns, name, why string) check.Finding {
		return check.Finding{Check: check.GitOpsNotFollowed, Severity: check.SeverityWarning, Source: source, Message: "(not read)",
			About: &check.Subject{Kind: kind, Namespace: ns, Name: name, Detail: why}}
	}
	findings := []check.Finding{
		nf("apps/a@Kustomization/ns/a", "HelmRelease", "ns", "rel-a", "chart in a registry"),
		nf("apps/b", "HelmRelease", "", "rel-b", "no namespace"),
		nf("apps/c", "HelmRelease", "other", "web", "elsewhere"),
		nf("apps/d", "Application", "argocd", "d", "another repository"),
		nf("apps/d", "Application", "argocd", "d2", "another repository"),
		// a finding about no one object, and other checks: left out
		{Check: check.GitOpsNotFollowed, Source: "apps/e", Message: "apps/e/x.yaml:1: something else"},
		{Check: check.GitOpsSubstitution, Source: "apps/g", About: &check.Subject{Kind: "HelmRelease", Name: "g", Detail: "y"}},
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
		{"a finding about no object left out", at("apps/e", "", "x"), ""},
		{"other checks left out", at("apps/g", "", "g"), ""},
	} {
		got, ok := u.beside(c.a)
		if ok != (c.want != "") || got != c.want {
			t.Errorf("%s: beside = %q, %v; want %q", c.name, got, ok, c.want)
		}
	}
}
