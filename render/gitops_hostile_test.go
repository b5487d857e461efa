package render

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/capreport/capreport/check"
)

// An ApplicationSet whose matrix of two 1,000-element lists would generate
// 10⁶ Applications is cut at the generator's bound, with a finding, in
// bounded time and memory; the Applications it keeps are still followed.
func TestAppSetMillionApplications(t *testing.T) {
	var elems strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&elems, "                - n: \"%d\"\n", i)
	}
	appset := "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata:\n  name: boom\n  namespace: argocd\nspec:\n  goTemplate: true\n  generators:\n" +
		"    - matrix:\n        generators:\n          - list:\n              elements:\n" + elems.String() +
		"          - list:\n              elements:\n" + strings.ReplaceAll(elems.String(), "n:", "m:") +
		"  template:\n    metadata:\n      name: 'a-{{.n}}-{{.m}}'\n    spec:\n      project: default\n      destination:\n        namespace: 'ns-{{.n}}-{{.m}}'\n" +
		"      source:\n        repoURL: " + testRepoURL + "\n        path: apps\n"
	opts, root := inMemory(t, map[string]string{"argocd/boom.yaml": appset, "apps/cm.yaml": checksCM}, DefaultOptions())
	withRepoURL(&opts)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	res, err := Render(context.Background(), root, opts)
	if err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	if elapsed > 60*time.Second {
		t.Errorf("took %s", elapsed)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<30 {
		t.Errorf("allocated %d MiB", alloc>>20)
	}
	limit := false
	for _, f := range res.Findings {
		limit = limit || f.Check == check.GitOpsLimit
	}
	if !limit {
		t.Errorf("no %s finding; %d findings", check.GitOpsLimit, len(res.Findings))
	}
	cms := 0
	for _, o := range res.Objects {
		if o.Kind == "ConfigMap" {
			cms++
		}
	}
	if cms == 0 || cms > 1000 {
		t.Errorf("%d ConfigMaps delivered, want the bounded set's", cms)
	}
	t.Logf("%s, %d MiB allocated, %d ConfigMaps", elapsed, (after.TotalAlloc-before.TotalAlloc)>>20, cms)
}
