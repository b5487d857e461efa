package appset

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/capreport/capreport/internal/testutil"
)

// TestCorpusBasicAppSet expands the real fixture of shared/corpus-gitops/adp-basic-appset (see its
// README): a list generator with goTemplate and missingkey=error, three Applications with two sources each.
func TestCorpusBasicAppSet(t *testing.T) {
	file := filepath.Join(testutil.RepoRoot(t), "..", "shared", "corpus-gitops", "adp-basic-appset",
		"examples", "basic-appset", "my-app-set.yaml")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Skipf("fixture not present: %v", err)
	}
	const repoURL = "https://github.com/dag-andersen/argocd-diff-preview"
	res := Expand(mustYAML(t, string(data)), newRepo(nil), Options{
		IsThisRepo: func(u string) bool { return u == repoURL },
	})
	if len(res.Problems) != 0 {
		t.Errorf("unexpected problems:\n%s", dumpFindings(res.Problems))
	}
	wantSources := []any{
		map[string]any{"repoURL": repoURL, "ref": "local-files"},
		map[string]any{
			"path":    "examples/helm/charts/myApp",
			"repoURL": repoURL,
			"helm":    map[string]any{"valueFiles": []any{"$local-files/examples/helm/values/my-app-set.yaml"}},
		},
	}
	var names []string
	for _, app := range res.Applications {
		names = append(names, appName(app))
		if app["apiVersion"] != "argoproj.io/v1alpha1" || app["kind"] != "Application" {
			t.Errorf("%s: apiVersion/kind = %v/%v", appName(app), app["apiVersion"], app["kind"])
		}
		if ns := field(app, "metadata.namespace"); ns != "argocd" {
			t.Errorf("%s: metadata.namespace = %v, want the ApplicationSet's (argocd)", appName(app), ns)
		}
		if got := field(app, "spec.sources"); !reflect.DeepEqual(got, wantSources) {
			t.Errorf("%s: sources = %s, want %s", appName(app), dump(got), dump(wantSources))
		}
		dest := map[string]any{"name": "in-cluster", "namespace": "default"}
		if got := field(app, "spec.destination"); !reflect.DeepEqual(got, dest) {
			t.Errorf("%s: destination = %v", appName(app), got)
		}
		if got := field(app, "spec.project"); got != "default" {
			t.Errorf("%s: project = %v", appName(app), got)
		}
		if got := field(app, "metadata.finalizers"); !reflect.DeepEqual(got, []any{resourcesFinalizer}) {
			t.Errorf("%s: finalizers = %v", appName(app), got)
		}
	}
	want := []string{"my-app-set-dev", "my-app-set-prod", "my-app-set-staging"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("applications = %v, want %v", names, want)
	}
}
