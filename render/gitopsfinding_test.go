package render

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capreport/capreport/check"
)

// A finding about a delivered GitOps object names the source that
// delivered it, even when its expansion was first made for the copy a
// standalone render held (same place, same content: the plan's, reused
// through the memo). gitops-istio's flagger HelmReleases sit in
// istio/system, which has no kustomization: discovery renders
// istio/system/flagger.yaml on its own, and Kustomization istio-system
// delivers it.
func TestDeliveredFindingNamesItsDelivery(t *testing.T) {
	dir, ok := findCorpus()
	if !ok {
		t.Fatal("../shared/corpus not found")
	}
	root := filepath.Join(dir, "..", "corpus-gitops", "gitops-istio")
	res, err := Render(context.Background(), root, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, f := range res.Findings {
		if f.Check == check.GitOpsNotFollowed && strings.Contains(f.Message, "HelmRelease istio-system/flagger") {
			found++
			if want := "istio/system@Kustomization/flux-system/istio-system"; f.Source != want {
				t.Errorf("finding source %q, want %q: %s", f.Source, want, f.Message)
			}
		}
	}
	if found == 0 {
		t.Errorf("no not-followed finding for HelmRelease istio-system/flagger: %s", dumpFindings(res.Findings))
	}
}
