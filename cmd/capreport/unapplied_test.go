package main

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/capreport/capreport/internal/testutil"
)

// Run on the whole of home-ops-bykaj, capreport follows the Kustomizations
// of opencloud and komga as roots (nothing in the repository applies them:
// both are commented out of their namespace's kustomization.yaml) and says
// so, naming the build that leaves them out; from the cluster's Flux entry
// point they are not followed and nothing is said.
func TestUnappliedRootsAreNamed(t *testing.T) {
	testutil.SkipIfShort(t)
	root := filepath.Join(heldout, "home-ops-bykaj")
	msg := func(file, name string) string {
		return file + ":3: Kustomization " + name + ": nothing in the repository applies it, and it stands beneath kubernetes/apps, " +
			"which Kustomization flux-system/cluster-apps (kubernetes/flux/cluster/ks.yaml:3) builds without this file; " +
			"followed as a root of its own, so what it delivers reaches the cluster only if something outside the repository applies it"
	}
	for _, c := range []struct {
		path string
		want []string
	}{
		{".", []string{
			msg("kubernetes/apps/default/opencloud/ks.yaml", "opencloud"),
			msg("kubernetes/apps/media/komga/ks.yaml", "komga"),
		}},
		{"kubernetes/flux/cluster", nil},
	} {
		got := listJSON(t, filepath.Join(root, c.path), "--root", root, "--format", "json")
		var found []string
		for _, f := range got.Findings {
			if f.Check == "gitops-unapplied-root" {
				if f.Severity != "warning" {
					t.Errorf("%s: severity %s", c.path, f.Severity)
				}
				found = append(found, f.Message)
			}
		}
		slices.Sort(found)
		if !slices.Equal(found, c.want) {
			t.Errorf("%s: gitops-unapplied-root findings\n got  %q\n want %q", c.path, found, c.want)
		}
	}
}
