package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/internal/testutil"
)

// A peer's own test suite as table tests: allenporter/flux-local's test
// clusters (testdata/flux-local/tests/testdata, copied byte for byte) and the
// Kustomizations and HelmReleases its golden snapshots record for
// `flux-local get ks|hr|ks-new|hr-new|cluster` (testdata/flux-local/
// expected.json; the README says where each comes from). For every golden
// invocation capreport lists the same path from the same root (flux-local's
// repository root is testdata/flux-local), and each object of the golden must
// be followed by capreport (a source rendered @Kind/namespace/name) or be the
// subject of a finding; capreport must follow no Kustomization or HelmRelease
// of the golden's scope that the golden does not list.

// fluxLocalExpected is one golden invocation of expected.json.
type fluxLocalExpected struct {
	Name    string   `json:"name"`
	Golden  string   `json:"golden"`
	Command []string `json:"command"`
	// Path as flux-local is given it, relative to its repository root.
	Path string `json:"path"`
	// Sources are flux-local's --sources NAME=PATH; SourceFilter every name
	// --sources gave (flux-local keeps only Kustomizations from them).
	Sources      map[string]string `json:"sources"`
	SourceFilter []string          `json:"source_filter"`
	// ImplicitSources are GitRepositories flux-local takes to be its
	// repository root without being told (an unmapped GitRepository is the
	// root, whatever its URL); capreport is told with --source.
	ImplicitSources    map[string]string `json:"implicit_sources"`
	KustomizationScope fluxLocalScope    `json:"kustomization_scope"`
	HelmReleaseScope   fluxLocalScope    `json:"helmrelease_scope"`
	// nil when the golden does not list that kind.
	Kustomizations []fluxLocalObject `json:"kustomizations"`
	HelmReleases   []fluxLocalObject `json:"helmreleases"`
}

// fluxLocalScope is what the golden's selector flags let through: a
// namespace (-n, flux-system unless -A), a name, labels (-l).
type fluxLocalScope struct {
	Namespace string            `json:"namespace"`
	Name      string            `json:"name"`
	Labels    map[string]string `json:"labels"`
}

func (s fluxLocalScope) admits(namespace, name string) bool {
	return (s.Namespace == "" || s.Namespace == namespace) && (s.Name == "" || s.Name == name)
}

type fluxLocalObject struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Path      string `json:"path,omitempty"`  // Kustomization: its path as flux-local resolves it
	Chart     string `json:"chart,omitempty"` // HelmRelease: chart name, or its path in a GitRepository
}

// fluxLocalDifferences are deliberate differences from a golden, each with
// its reason: golden name and object ("Kustomization ns/name") as reported.
var fluxLocalDifferences = []struct{ golden, object, reason string }{
	{"test_get_ks[cluster3]", "Kustomization flux-system/flux-system",
		"flux-local's --sources also filters the listing to Kustomizations of the named sources; capreport's --source only maps a source to a directory"},
}

func fluxLocalDeliberate(golden, object string) (string, bool) {
	for _, d := range fluxLocalDifferences {
		if d.golden == golden && d.object == object {
			return d.reason, true
		}
	}
	return "", false
}

// cleanFluxPath is a path as flux-local or capreport writes it, without "./",
// a leading or a trailing slash.
func cleanFluxPath(p string) string {
	return strings.TrimPrefix(path.Clean("/"+p), "/")
}

// fluxLocalRun is one capreport list and what it followed and found.
type fluxLocalRun struct {
	args     []string
	followed map[string][]string // "Kind ns/name" → source paths
	statuses map[string]string   // "Kind ns/name" → status of a source not rendered
	findings []string            // "check: message"
}

func runFluxLocal(t *testing.T, args []string) *fluxLocalRun {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := run(args, &cmdutil.IOStreams{Out: &out, ErrOut: &errOut}); code == cmdutil.ExitError {
		t.Fatalf("capreport %s: exit %d: %s", strings.Join(args, " "), code, errOut.String())
	}
	var got contract.Inventory
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out.String())
	}
	r := &fluxLocalRun{args: args, followed: map[string][]string{}, statuses: map[string]string{}}
	for _, s := range got.Sources {
		p, via, _ := strings.Cut(s.Path, "@")
		if s.ValueSet != "" {
			via = s.ValueSet
		}
		parts := strings.Split(via, "/")
		if len(parts) != 3 || (parts[0] != "Kustomization" && parts[0] != "HelmRelease") {
			continue
		}
		key := parts[0] + " " + parts[1] + "/" + parts[2]
		r.followed[key] = append(r.followed[key], p)
		if s.Status != "rendered" {
			r.statuses[key] = s.Status + " " + s.Reason
		}
		for _, f := range s.Findings {
			r.findings = append(r.findings, f.Check+": "+f.Message)
		}
	}
	for _, f := range got.Findings {
		r.findings = append(r.findings, f.Check+": "+f.Message)
	}
	return r
}

// finding is the first finding whose subject is object ("Kind ns/name").
func (r *fluxLocalRun) finding(object string) (string, bool) {
	re := regexp.MustCompile(`(^|[\s(:])` + regexp.QuoteMeta(object) + `($|[\s:;,)])`)
	for _, f := range r.findings {
		if re.MatchString(f) {
			return f, true
		}
	}
	return "", false
}

func TestFluxLocalGoldens(t *testing.T) {
	testutil.SkipIfShort(t)
	root, err := filepath.Abs(filepath.Join("..", "..", "testdata", "flux-local"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []fluxLocalExpected
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	runs := map[string]*fluxLocalRun{} // several goldens list the same invocation
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			if _, err := os.Stat(filepath.Join(root, c.Path)); err != nil {
				t.Fatal(err)
			}
			args := []string{"list", filepath.Join(root, c.Path), "--root", root, "--format", "json"}
			var srcs []string
			for _, m := range []map[string]string{c.Sources, c.ImplicitSources} {
				for name, p := range m {
					srcs = append(srcs, "--source="+name+"="+filepath.Join(root, p))
				}
			}
			sort.Strings(srcs)
			args = append(args, srcs...)
			key := strings.Join(args, "\x00")
			r := runs[key]
			if r == nil {
				r = runFluxLocal(t, args)
				runs[key] = r
			}
			t.Logf("flux-local: %s\ncapreport %s", strings.Join(c.Command, " "), strings.Join(args, " "))
			check := func(kind string, want []fluxLocalObject, scope fluxLocalScope) {
				if want == nil {
					return // the golden does not list this kind
				}
				listed := map[string]bool{}
				for _, w := range want {
					object := kind + " " + w.Namespace + "/" + w.Name
					listed[object] = true
					reason, deliberate := fluxLocalDeliberate(c.Name, object)
					if paths, ok := r.followed[object]; ok {
						if st, bad := r.statuses[object]; bad {
							t.Errorf("%s: followed but %s", object, st)
						}
						wantPath := w.Path
						if kind == "HelmRelease" && strings.Contains(w.Chart, "/") {
							wantPath = w.Chart // a chart in a GitRepository, by its path
						}
						if wantPath != "" && !deliberate && !containsFluxPath(paths, cleanFluxPath(wantPath)) {
							t.Errorf("%s: followed at %v, flux-local resolves %s", object, paths, wantPath)
						}
						t.Logf("  %s: followed at %v", object, paths)
						continue
					}
					if f, ok := r.finding(object); ok {
						t.Logf("  %s: finding %s", object, f)
						continue
					}
					if deliberate {
						t.Logf("  %s: neither followed nor found, deliberately: %s", object, reason)
						continue
					}
					t.Errorf("%s: flux-local lists it; capreport neither follows it nor names it in a finding; findings:\n  %s",
						object, strings.Join(r.findings, "\n  "))
				}
				if len(scope.Labels) > 0 {
					t.Logf("  extra %ss not checked: the golden selects by labels %v, which capreport's output does not show", kind, scope.Labels)
					return
				}
				var extra []string
				for object := range r.followed {
					k, nsName, _ := strings.Cut(object, " ")
					ns, name, _ := strings.Cut(nsName, "/")
					if k != kind || listed[object] || !scope.admits(ns, name) {
						continue
					}
					if reason, ok := fluxLocalDeliberate(c.Name, object); ok {
						t.Logf("  %s: followed by capreport only, deliberately: %s", object, reason)
						continue
					}
					extra = append(extra, object)
				}
				sort.Strings(extra)
				for _, object := range extra {
					t.Errorf("%s: capreport follows it (at %v); the golden does not list it", object, r.followed[object])
				}
			}
			check("Kustomization", c.Kustomizations, c.KustomizationScope)
			check("HelmRelease", c.HelmReleases, c.HelmReleaseScope)
		})
	}
}

func containsFluxPath(paths []string, want string) bool {
	for _, p := range paths {
		if cleanFluxPath(p) == want {
			return true
		}
	}
	return false
}
