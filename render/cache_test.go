package render

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/capreport/capreport/internal/testutil"
)

// cacheRepo is a repository of three sources of each kind: two charts and
// a kustomization over a base, and a plain file.
func cacheRepo() map[string]string {
	files := map[string]string{
		"plain/hpa.yaml":                  plainHPA("plain"),
		"base/kustomization.yaml":         "resources:\n  - hpa.yaml\n",
		"base/hpa.yaml":                   plainHPA("kbase"),
		"overlay/kustomization.yaml":      "namespace: prod\nresources:\n  - ../base\n",
		"charts/a/Chart.yaml":             "apiVersion: v2\nname: a\nversion: 1.0.0\n",
		"charts/a/values.yaml":            "max: 4\n",
		"charts/a/templates/hpa.yaml":     chartHPA,
		"charts/b/Chart.yaml":             "apiVersion: v2\nname: b\nversion: 1.0.0\n",
		"charts/b/values.yaml":            "max: 6\n",
		"charts/b/templates/hpa.yaml":     chartHPA,
		"charts/b/templates/_helpers.tpl": "{{- define \"b.x\" -}}x{{- end -}}\n",
	}
	return files
}

func plainHPA(name string) string {
	return fmt.Sprintf("apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: %s\nspec:\n  scaleTargetRef:\n    apiVersion: apps/v1\n    kind: Deployment\n    name: %s\n  maxReplicas: 3\n", name, name)
}

const chartHPA = "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: {{ .Chart.Name }}\nspec:\n  scaleTargetRef:\n    apiVersion: apps/v1\n    kind: Deployment\n    name: {{ .Chart.Name }}\n  maxReplicas: {{ .Values.max }}\n"

// renderedSources are the sources a result rendered rather than took from
// the cache.
func renderedSources(res *Result) []string {
	var out []string
	for _, s := range res.Sources {
		if !s.Cached {
			out = append(out, s.Path)
		}
	}
	return out
}

// withoutCached is res with every source's Cached flag cleared, to compare
// a cached run with a fresh one.
func withoutCached(res *Result) *Result {
	out := *res
	out.Sources = append([]SourceResult(nil), res.Sources...)
	for i := range out.Sources {
		out.Sources[i].Cached = false
	}
	return &out
}

func renderDir(t *testing.T, dir string, opts Options) *Result {
	t.Helper()
	opts.Root = dir
	res, err := Render(context.Background(), dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// A second render takes every source from the cache and gives the same
// result; a changed file, a file added to a chart, or a changed base
// re-renders exactly the sources that read it; and a copy of the
// repository at another path (a base checked out in a worktree) finds
// what the first stored, in a worker process as in-process.
func TestRenderCache(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts func(Options) Options
	}{
		{"in-process", func(o Options) Options { return o }},
		{"workers", isolated},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.opts(DefaultOptions())
			opts.RenderCacheDir = t.TempDir()
			dir := t.TempDir()
			testutil.WriteTree(t, dir, cacheRepo())
			cold := renderDir(t, dir, opts)
			if got := renderedSources(cold); len(got) != 4 {
				t.Fatalf("cold run rendered %q, want all 4 sources", got)
			}
			warm := renderDir(t, dir, opts)
			if got := renderedSources(warm); len(got) != 0 {
				t.Errorf("warm run rendered %q, want none", got)
			}
			if !reflect.DeepEqual(withoutCached(warm), cold) {
				t.Errorf("cached result differs:\n got %+v\nwant %+v", warm, cold)
			}
			for _, step := range []struct {
				name, file, content string
				want                []string
			}{
				{"value changed", "charts/b/values.yaml", "max: 7\n", []string{"charts/b"}},
				{"template added", "charts/a/templates/extra.yaml", "# nothing\n", []string{"charts/a"}},
				{"base changed", "base/hpa.yaml", plainHPA("kbase2"), []string{"overlay"}},
				{"unrelated file", "README.md", "# docs\n", nil},
			} {
				testutil.WriteTree(t, dir, map[string]string{step.file: step.content})
				if got := renderedSources(renderDir(t, dir, opts)); !reflect.DeepEqual(got, step.want) {
					t.Errorf("%s: rendered %q, want %q", step.name, got, step.want)
				}
			}
			copyDir := t.TempDir()
			testutil.CopyTree(t, dir, copyDir)
			if got := renderedSources(renderDir(t, copyDir, opts)); len(got) != 0 {
				t.Errorf("copy at another path rendered %q, want none", got)
			}
		})
	}
}

// A failed render is never stored, nor one that fetches (what it
// downloads is not in the key); the other sources of a fetching run are.
func TestRenderCacheStoresOnlyReusable(t *testing.T) {
	opts := DefaultOptions()
	opts.RenderCacheDir = t.TempDir()
	dir := t.TempDir()
	testutil.WriteTree(t, dir, map[string]string{"charts/bad/Chart.yaml": "apiVersion: v2\nname: bad\nversion: 1.0.0\n",
		"charts/bad/templates/x.yaml": "{{ fail \"no\" }}\n"})
	renderDir(t, dir, opts)
	if got := renderedSources(renderDir(t, dir, opts)); len(got) != 1 {
		t.Errorf("a failed render was taken from the cache: rendered %q", got)
	}
	opts.Fetch.Enabled = true
	opts.Fetch.RequestTimeout = time.Second
	testutil.WriteTree(t, dir, map[string]string{
		"plain.yaml":                    plainHPA("p"),
		"charts/dep/Chart.yaml":         "apiVersion: v2\nname: dep\nversion: 1.0.0\ndependencies:\n  - name: lib\n    version: 1.0.0\n    repository: http://127.0.0.1:1/charts\n",
		"charts/dep/values.yaml":        "max: 3\n",
		"charts/dep/templates/hpa.yaml": chartHPA,
	})
	renderDir(t, dir, opts)
	got := renderedSources(renderDir(t, dir, opts))
	if !reflect.DeepEqual(got, []string{"charts/bad", "charts/dep"}) {
		t.Errorf("with --fetch the second run rendered %q, want the failed chart and the one that fetches", got)
	}
}

// The sources GitOps objects deliver are cached like the rest: their specs
// hold maps (a kustomization to apply, values), which the key writes in
// order, so a second run of each GitOps fixture renders nothing and gives
// the same result.
func TestRenderCacheGitOps(t *testing.T) {
	for name, c := range gitopsFixtures {
		t.Run(name, func(t *testing.T) {
			root, err := filepath.Abs(filepath.Join("..", "testdata", "gitops", name))
			if err != nil {
				t.Fatal(err)
			}
			opts := DefaultOptions()
			opts.Root, opts.RepoURLs, opts.RenderCacheDir = root, c.urls, t.TempDir()
			run := func() *Result {
				res, err := Render(context.Background(), filepath.Join(root, c.path), opts)
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			cold, warm := run(), run()
			if got := renderedSources(warm); len(got) != 0 {
				t.Errorf("second run rendered %q, want nothing", got)
			}
			if !reflect.DeepEqual(deterministic(withoutCached(warm)), deterministic(cold)) {
				t.Errorf("cached result differs from the first")
			}
		})
	}
}
