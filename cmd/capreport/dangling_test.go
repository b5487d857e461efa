package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/internal/testutil"
)

// An HPA whose Deployment comes from a HelmRelease capreport does not
// follow (every home-ops zeroscaler beside an app-template release from an
// OCIRepository) is not a misspelt scaleTargetRef: its dangling-target
// finding is a warning that names the release and why it was not followed,
// found in the autoscaler's own build (immich-server beside HelmRelease
// immich), in the directory that build reads, or by the target's name in
// its namespace (a ResourceSet's HPAs). A target with nothing unfollowed
// beside it stays an error.
func TestDanglingTargetBesideUnfollowedRelease(t *testing.T) {
	testutil.SkipIfShort(t)
	const oci = " was not followed (spec.chartRef is OCIRepository "
	const fetch = ", a chart in a registry, downloaded only with --fetch) and what it installs is missing"
	cases := []struct {
		repo, path string
		want       map[string]string // autoscaler ID: severity and message
	}{
		{"home-ops-tscibilia", "kubernetes/flux/cluster", map[string]string{
			"default/HorizontalPodAutoscaler/immich-server": "warning default/HorizontalPodAutoscaler/immich-server scales Deployment/immich-server, which is not among the rendered objects, most likely because HelmRelease default/immich" + oci + "default/immich" + fetch,
			"default/HorizontalPodAutoscaler/komga":         "warning default/HorizontalPodAutoscaler/komga scales Deployment/komga, which is not among the rendered objects, most likely because HelmRelease default/komga" + oci + "default/komga" + fetch,
		}},
		{"k8s-gitops-billimek", ".", map[string]string{
			"default/HorizontalPodAutoscaler/plex-nfs-scaler": "warning default/HorizontalPodAutoscaler/plex-nfs-scaler scales Deployment/plex, which is not among the rendered objects, most likely because HelmRelease default/plex" + oci + "flux-system/app-template" + fetch,
			// the fixture holds the ResourceSet, not audiobookshelf's release
			"default/HorizontalPodAutoscaler/audiobookshelf-nfs-scaler": "error default/HorizontalPodAutoscaler/audiobookshelf-nfs-scaler scales Deployment/audiobookshelf, which is not among the rendered objects",
		}},
	}
	for _, c := range cases {
		t.Run(c.repo, func(t *testing.T) {
			root := filepath.Join(heldout, c.repo)
			var out, errOut bytes.Buffer
			code := run([]string{"list", filepath.Join(root, c.path), "--root", root, "--format", "json"}, &cmdutil.IOStreams{Out: &out, ErrOut: &errOut})
			if code == cmdutil.ExitError {
				t.Fatalf("exit %d: %s", code, errOut.String())
			}
			var got contract.Inventory
			if err := json.Unmarshal(out.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			found := map[string]string{}
			for _, a := range got.Autoscalers {
				for _, f := range a.Findings {
					if f.Check == "dangling-target" {
						found[a.ID] = f.Severity + " " + f.Message
					}
				}
			}
			for id, want := range c.want {
				if found[id] != want {
					t.Errorf("%s:\n got  %q\n want %q", id, found[id], want)
				}
			}
		})
	}
}
