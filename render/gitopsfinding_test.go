package render

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/internal/testutil"
)

// A finding about a delivered GitOps object names the source that
// delivered it, even when its expansion was first made for the copy a
// standalone render held (same place, same content: the plan's, reused
// through the memo). gitops-istio's flagger HelmReleases sit in
// istio/system, which has no kustomization: discovery renders
// istio/system/flagger.yaml on its own, and Kustomization istio-system
// delivers it.
func TestDeliveredFindingNamesItsDelivery(t *testing.T) {
	dir, ok := testutil.Shared(t, "corpus-gitops")
	if !ok {
		t.Skip("the developers' corpus is left out (CAPREPORT_CI_WITHOUT_CORPUS=1)")
	}
	root := filepath.Join(dir, "gitops-istio")
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

// A SOPS-encrypted substituteFrom Secret gives no values: ${max:=4} takes
// its default instead of the ciphertext.
func TestSOPSSecretGivesNoValues(t *testing.T) {
	res := renderMem(t, map[string]string{
		"clusters/apps.yaml": fluxKS("apps", "./apps", "  postBuild:\n    substituteFrom:\n      - kind: Secret\n        name: vars\n"),
		"clusters/vars.yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: vars\n  namespace: flux-system\nstringData:\n    max: ENC[AES256_GCM,data:Ng==,iv:x,tag:y,type:str]\nsops:\n    version: 3.9.0\n",
		"apps/hpa.yaml":      hpaDoc("web", "${max:=4}"),
	}, ".", DefaultOptions())
	found := false
	for _, o := range res.Objects {
		if o.Kind == "HorizontalPodAutoscaler" && len(o.Origin.Chain) > 0 {
			found = true
			if got := o.Doc["spec"].(map[string]any)["maxReplicas"]; got != int64(4) && got != float64(4) {
				t.Errorf("maxReplicas = %v (%T), want the default 4", got, got)
			}
		}
	}
	if !found {
		t.Fatalf("no delivered HPA: %s", dumpFindings(res.Findings))
	}
}
