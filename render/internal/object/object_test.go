package object

import (
	"testing"

	"github.com/capreport/capreport/check"
)

// A clone can be changed without changing the original: its document,
// annotation lines and chain are its own.
func TestClone(t *testing.T) {
	o, ok := FromDoc(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "a", "namespace": "n"}, "data": map[string]any{"k": []any{"v"}}})
	if !ok || o.Name != "a" || o.Namespace != "n" {
		t.Fatalf("FromDoc: %+v %v", o, ok)
	}
	o.Origin.AnnotationLines = map[string]int{"x": 3}
	c := o.Clone()
	c.Doc["data"].(map[string]any)["k"].([]any)[0] = "changed"
	c.Origin.AnnotationLines["x"] = 9
	if o.Doc["data"].(map[string]any)["k"].([]any)[0] != "v" || o.Origin.AnnotationLines["x"] != 3 {
		t.Errorf("changing the clone changed the original: %+v", o)
	}
	if _, ok := FromDoc(map[string]any{"kind": "ConfigMap"}); ok {
		t.Error("a document without apiVersion made an object")
	}
}

// A release namespace or destination is given to namespaced objects that
// set none, in the object and a manifest of its own; cluster-scoped kinds
// and objects with a namespace keep theirs.
func TestSetDefaultNamespace(t *testing.T) {
	md := map[string]any{"name": "a"}
	shared := map[string]any{"kind": "Deployment", "metadata": md}
	o := Object{Kind: "Deployment", Name: "a", Doc: shared}
	SetDefaultNamespace(&o, "team")
	if o.Namespace != "team" || o.Doc["metadata"].(map[string]any)["namespace"] != "team" || md["namespace"] != nil {
		t.Errorf("namespace %q, manifest %v, shared metadata %v", o.Namespace, o.Doc["metadata"], md)
	}
	ns := Object{Kind: "Namespace", Name: "x"}
	SetDefaultNamespace(&ns, "team")
	if ns.Namespace != "" {
		t.Errorf("a Namespace was given namespace %q", ns.Namespace)
	}
}

// A GitOps object's finding is at its place and names it.
func TestFinding(t *testing.T) {
	o := &Object{Kind: "Kustomization", Name: "apps", Namespace: "flux-system", Origin: Origin{File: "clusters/apps.yaml", Line: 4, Source: "clusters"}}
	f := Finding(o, check.GitOpsNotFollowed, check.SeverityWarning, "why")
	if f.Message != "clusters/apps.yaml:4: Kustomization flux-system/apps: why" || f.Source != "clusters" || Ref(o) != "Kustomization/flux-system/apps" {
		t.Errorf("finding %+v, ref %q", f, Ref(o))
	}
}
