package render_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/capreport/capreport/analyze"
	"github.com/capreport/capreport/render"
)

// BenchmarkGitOpsFollow renders each held-out Flux repository
// (testdata/gitops-heldout) from its root twice: as plain discovery
// (NoGitOps: every chart, overlay and file on its own) and following its
// Flux objects, which issue 29 holds to at most twice the plain render.
// In-process with the command line's render options, so that the figures
// are the renders', not the workers'.
func BenchmarkGitOpsFollow(b *testing.B) {
	for _, repo := range []string{"flux2-general", "home-ops-bjw-s", "home-ops-mirceanton", "home-ops-tscibilia", "home-ops-bykaj", "k8s-gitops-billimek"} {
		root := filepath.Join("..", "testdata", "gitops-heldout", repo)
		for _, mode := range []struct {
			name     string
			noGitOps bool
		}{{"plain", true}, {"gitops", false}} {
			b.Run(repo+"/"+mode.name, func(b *testing.B) {
				opts := render.DefaultOptions()
				opts.Keep, opts.StubCRDs, opts.LocatedOnly = analyze.MayNeed, true, true // as the command line renders
				opts.NoGitOps = mode.noGitOps
				for i := 0; i < b.N; i++ {
					if _, err := render.Render(context.Background(), root, opts); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
