package render

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// renderBoth renders dir from its root as the command line does, deferring
// the sources Flux Kustomizations deliver and not, and fails unless the
// two results are the same; it returns the deferring one.
func renderBoth(t *testing.T, dir string, opts Options) deferralSeen {
	t.Helper()
	opts.StubCRDs, opts.LocatedOnly = true, true
	var seen, without deferralSeen
	opts.deferred = func(n int, redo string) { seen = deferralSeen{n, redo} }
	got := renderDir(t, dir, opts)
	opts.noDeferral = true
	opts.deferred = func(n int, redo string) { without = deferralSeen{n, redo} }
	want := renderDir(t, dir, opts)
	if without != (deferralSeen{}) {
		t.Fatalf("noDeferral deferred %d sources (%q)", without.deferred, without.redo)
	}
	for _, part := range []struct {
		name      string
		got, want any
	}{{"objects", got.Objects, want.Objects}, {"sources", got.Sources, want.Sources},
		{"findings", got.Findings, want.Findings}, {"withheld", got.Withheld, want.Withheld}} {
		g, _ := json.MarshalIndent(part.got, "", " ")
		w, _ := json.MarshalIndent(part.want, "", " ")
		if string(g) != string(w) {
			t.Errorf("%s: deferring, the %s differ from a render of every source:\n%s", dir, part.name, firstDifference(string(g), string(w)))
		}
	}
	for _, s := range got.Sources {
		if s.Status == StatusDelivered && (s.Partial || s.Objects != 0 || len(s.Findings) != 0) {
			t.Errorf("%s: superseded %s keeps what its own render said: %+v", dir, s.Path, s)
		}
	}
	return seen
}

// deferralSeen is what Options.deferred was told.
type deferralSeen struct {
	deferred int
	redo     string
}

// firstDifference shows the lines around the first line a and b differ in.
func firstDifference(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			lo := max(i-3, 0)
			return "deferring:\n" + strings.Join(al[lo:min(i+4, len(al))], "\n") + "\nevery source:\n" + strings.Join(bl[lo:min(i+4, len(bl))], "\n")
		}
	}
	return "one is longer"
}

// Deferring the sources a Flux Kustomization delivers changes no report:
// where every guess holds (the held-out home-ops repositories) and where
// one fails and the sources are rendered after all (a failed build
// withholds them, a reference may have found one of their objects on its
// own, a kustomization beside them lists something else).
func TestDeferralGivesTheFullRender(t *testing.T) {
	for _, tc := range []struct {
		dir      string
		deferred int
		redo     string // part of why the deferred sources were rendered after all; "": they were not
	}{
		{"gitops-heldout/home-ops-bykaj", 38, ""},
		{"gitops-heldout/k8s-gitops-billimek", 19, ""},
		{"gitops/flux-features", 2, ""},
		{"gitops/flux-failed", 1, "apps was not rendered on its own, and no delivery superseded it (withheld)"},
		{"gitops/flux-rules", 2, "apps/broken was not rendered on its own, and no delivery superseded it (withheld)"},
		{"gitops-heldout/flux2-general", 8, "a reference may have found HelmRepository falco of clusters/demo-000/infra/sources on its own"},
		{"flux-local/tests/testdata/cluster3", 2, "namespaces/overlays/cluster3 was not rendered on its own, and no delivery superseded it (rendered)"},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			res := renderBoth(t, filepath.Join("..", "testdata", filepath.FromSlash(tc.dir)), DefaultOptions())
			if res != (deferralSeen{tc.deferred, tc.redo}) {
				t.Errorf("deferred %d sources, redo %q; want %d, %q", res.deferred, res.redo, tc.deferred, tc.redo)
			}
		})
	}
}

// The same through render workers, which parse kustomize's schema while
// the first delivered build runs (workerRequest.Warm).
func TestDeferralInWorkers(t *testing.T) {
	res := renderBoth(t, filepath.Join("..", "testdata", "gitops-heldout", "home-ops-bykaj"), isolated(DefaultOptions()))
	if res != (deferralSeen{38, ""}) {
		t.Errorf("deferred %d sources, redo %q; want 38 and none", res.deferred, res.redo)
	}
}

// A Kustomization of another repository whose path names a directory of
// this one, one whose build fails, and a directory a kustomization beside
// it does not list: each guess is wrong, and the report is still the one a
// render of every source gives.
func TestDeferralWrongGuesses(t *testing.T) {
	const gitRepo = `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata: {name: %s, namespace: flux-system}
spec: {url: %s, interval: 1h}
`
	const ks = `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: %s, namespace: flux-system}
spec:
  interval: 1h
  path: %s
  sourceRef: {kind: GitRepository, name: %s}
`
	hpa := goodHPA
	for _, tc := range []struct {
		name  string
		files map[string]string
		redo  string
	}{
		{"another repository", map[string]string{
			"clusters/prod/sources.yaml": fmt.Sprintf(gitRepo, "other", "https://example.com/other.git"),
			"clusters/prod/apps.yaml":    fmt.Sprintf(ks, "apps", "./apps", "other"),
			"apps/hpa.yaml":              hpa,
		}, "apps/hpa.yaml was not rendered on its own, and no delivery superseded it (rendered)"},
		{"a failed build", map[string]string{
			"clusters/prod/sources.yaml": fmt.Sprintf(gitRepo, "flux-system", "https://example.com/this.git"),
			"clusters/prod/apps.yaml":    fmt.Sprintf(ks, "apps", "./apps", "flux-system"),
			"apps/kustomization.yaml":    "resources: [hpa.yaml, missing.yaml]\n",
			"apps/hpa.yaml":              hpa,
		}, "apps was not rendered on its own, and no delivery superseded it (withheld)"},
		{"renamed by the delivering Kustomization's patch", map[string]string{
			"clusters/prod/sources.yaml": fmt.Sprintf(gitRepo, "flux-system", "https://example.com/this.git"),
			"clusters/prod/apps.yaml": fmt.Sprintf(ks, "apps", "./apps", "flux-system") +
				"  patches:\n  - patch: '[{\"op\":\"replace\",\"path\":\"/metadata/name\",\"value\":\"renamed\"}]'\n    target: {kind: ConfigMap, name: vars}\n",
			"clusters/prod/web.yaml": fmt.Sprintf(ks, "web", "./web", "flux-system") +
				"  targetNamespace: default\n  postBuild:\n    substituteFrom: [{kind: ConfigMap, name: vars}]\n",
			"apps/vars.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: vars, namespace: flux-system}\ndata: {HOST: example.com}\n",
			"web/cm.yaml":    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: out}\ndata: {host: '${HOST}'}\n",
		}, "a reference may have found ConfigMap vars of apps/vars.yaml on its own"},
		{"not listed", map[string]string{
			"clusters/prod/sources.yaml":    fmt.Sprintf(gitRepo, "flux-system", "https://example.com/this.git"),
			"clusters/prod/apps.yaml":       fmt.Sprintf(ks, "apps", "./apps", "flux-system"),
			"apps/kustomization.yaml":       "resources: [web]\n",
			"apps/web/kustomization.yaml":   "resources: [hpa.yaml]\n",
			"apps/web/hpa.yaml":             hpa,
			"apps/other/kustomization.yaml": "resources: [hpa.yaml]\n",
			"apps/other/hpa.yaml":           strings.ReplaceAll(hpa, "name: web, namespace", "name: other, namespace"),
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, text := range tc.files {
				p := filepath.Join(dir, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			opts := DefaultOptions()
			opts.RepoURLs = []string{"https://example.com/this.git"}
			seen := renderBoth(t, dir, opts)
			if seen.redo != tc.redo || seen.deferred == 0 {
				t.Errorf("deferred %d sources, redo %q; want some, %q", seen.deferred, seen.redo, tc.redo)
			}
			res := renderDir(t, dir, opts)
			if tc.name == "not listed" && !slices.ContainsFunc(res.Sources, func(s SourceResult) bool {
				return s.Path == "apps/other" && s.Status == StatusRendered
			}) {
				t.Errorf("apps/other, which apps/kustomization.yaml does not list, is not rendered on its own: %+v", res.Sources)
			}
		})
	}
}

// A source is left to a Flux Kustomization's path only when the build of
// that path reads it: no kustomization on the way down lists something
// else instead.
func TestReachedFrom(t *testing.T) {
	rd := &renderer{kustDirs: map[string]bool{"apps": true, "apps/web": true, "infra/db": true, "infra/db/extra": true}}
	paths := map[string]bool{"apps": true, "apps/web": true, "infra": true}
	for _, tc := range []struct {
		spec SourceSpec
		want bool
	}{
		{SourceSpec{Path: "apps", Type: SourceKustomize}, true},       // the path itself
		{SourceSpec{Path: "apps/web", Type: SourceKustomize}, true},   // its own Kustomization's path
		{SourceSpec{Path: "apps/x.yaml", Type: SourcePlain}, false},   // apps' kustomization does not list it
		{SourceSpec{Path: "infra/db", Type: SourceKustomize}, true},   // a generated kustomization takes it whole
		{SourceSpec{Path: "infra/a/b.yaml", Type: SourcePlain}, true}, // and every manifest below
		{SourceSpec{Path: "infra/db/extra", Type: SourceKustomize}, false},
		{SourceSpec{Path: "other/c.yaml", Type: SourcePlain}, false},
	} {
		if got := rd.reachedFrom(tc.spec, paths); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.spec.Path, got, tc.want)
		}
	}
}
