package render

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render/internal/valuesfrom"
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

// Applications that build one folder for one destination share one build
// (they deliver the same objects, which the cluster holds once): each
// still gets its own copy, named after it, with its own chain.
func TestDeliveredBuildShared(t *testing.T) {
	files := map[string]string{"apps/hpa.yaml": hpaDoc("web", "5")}
	for i := range 3 {
		files[fmt.Sprintf("argocd/a%d.yaml", i)] = argoApp(fmt.Sprintf("a%d", i), "apps")
	}
	opts, root := inMemory(t, files, DefaultOptions())
	withRepoURL(&opts)
	res, err := Render(context.Background(), root, opts)
	if err != nil {
		t.Fatal(err)
	}
	var sets []string
	for _, s := range res.Sources {
		if s.Path == "apps" && s.Status == StatusRendered {
			sets = append(sets, s.ValueSet)
		}
	}
	if want := []string{"Application/argocd/a0", "Application/argocd/a1", "Application/argocd/a2"}; !slices.Equal(sets, want) {
		t.Errorf("builds of apps named %v, want %v", sets, want)
	}
	for _, o := range res.Objects {
		if o.Kind == "HorizontalPodAutoscaler" {
			last := o.Origin.Chain[len(o.Origin.Chain)-1]
			if want := "apps@Application/argocd/" + last.Name; o.Origin.Source != want {
				t.Errorf("the HPA delivered by %s has source %q, want %q", last.Name, o.Origin.Source, want)
			}
		}
	}
	dup := ""
	for _, f := range res.Findings {
		if f.Check == check.DuplicateDelivery {
			dup = f.Message
		}
	}
	for _, i := range []int{0, 2} { // the first and the last to apply
		if !strings.Contains(dup, fmt.Sprintf("Application argocd/a%d → apps/hpa.yaml", i)) {
			t.Errorf("the duplicate delivery does not name a%d's chain: %q", i, dup)
		}
	}
}

// A valuesFrom ConfigMap larger than the API server accepts is not read,
// and once the run's valuesFrom budget is spent a release says how many of
// its references it left out.
func TestValuesFromBounds(t *testing.T) {
	cm := func(name string, size int) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: " + name + ", namespace: apps}\ndata:\n  values.yaml: |\n    pad: " +
			strings.Repeat("x", size) + "\n"
	}
	refs := func(name string, n int) string {
		return "  valuesFrom:\n" + strings.Repeat("  - {kind: ConfigMap, name: "+name+"}\n", n)
	}
	files := map[string]string{
		"charts/web/Chart.yaml": webChart, "charts/web/templates/hpa.yaml": webHPA,
		"flux/sync.yaml": "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {name: flux-system, namespace: flux-system}\nspec: {url: " + testRepoURL + "}\n",
		"flux/big.yaml":  cm("big", valuesfrom.MaxConfigData+1),
		"flux/near.yaml": cm("near", valuesfrom.MaxConfigData-100),
		"flux/hr.yaml": fluxHR("over", "apps", gitChartSpec, refs("big", 1)) + "---\n" +
			fluxHR("many", "apps", gitChartSpec, refs("near", valuesfrom.BudgetBytes/valuesfrom.MaxConfigData+3)),
	}
	opts, root := inMemory(t, files, DefaultOptions())
	withRepoURL(&opts)
	start := time.Now()
	res, err := Render(context.Background(), root, opts)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("took %s", took)
	}
	var over, spent bool
	for _, f := range res.Findings {
		over = over || f.Check == check.GitOpsReference && strings.Contains(f.Message, "more than the 1048576 the Kubernetes API server accepts")
		spent = spent || f.Check == check.GitOpsLimit && strings.Contains(f.Message, "3 of its references are not read")
	}
	if !over || !spent {
		t.Errorf("want a finding on the ConfigMap over 1 MiB (%v) and one on the spent budget (%v); findings:\n%s", over, spent, dumpFindings(res.Findings))
	}
}
