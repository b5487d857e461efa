package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/capreport/capreport/internal/testutil"
)

// home-ops-bykaj's namespace kustomizations read
// ../../components/replacements/ks.yaml, which kustomize build refuses on
// its own, so the plan cannot see the app Kustomizations they list; the
// walk finds them in the root's build. Each app directory is then
// delivered, not also rendered on its own: no second row, and no
// not-followed finding for its HelmRelease without the namespace its
// delivery gives it (31 of them before).
func TestDirectoryDeliveredLateIsNotAlsoStandalone(t *testing.T) {
	testutil.SkipIfShort(t)
	root := filepath.Join(heldout, "home-ops-bykaj")
	got := listJSON(t, root, "--root", root, "--format", "json")
	var rows []string
	for _, s := range got.Sources {
		if s.Path == "kubernetes/apps/default/atuin/app" {
			rows = append(rows, s.ValueSet+" "+s.Status+" "+s.Reason)
		}
	}
	want := []string{" delivered rendered through Kustomization/default/atuin", "Kustomization/default/atuin rendered "}
	if strings.Join(rows, "|") != strings.Join(want, "|") {
		t.Errorf("atuin's rows %q, want %q", rows, want)
	}
	standalone, delivered := 0, 0
	for _, f := range got.Findings {
		switch {
		case f.Check != "gitops-not-followed":
		case strings.Contains(f.Message, ": HelmRelease atuin: "):
			standalone++
		case strings.Contains(f.Message, ": HelmRelease default/atuin: "):
			delivered++
		}
	}
	if standalone != 0 || delivered != 1 {
		t.Errorf("not-followed findings for atuin's HelmRelease: %d without a namespace, %d in default; want 0 and 1", standalone, delivered)
	}
}
