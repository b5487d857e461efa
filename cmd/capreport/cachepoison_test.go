package main

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/internal/testutil"
)

// poisonHPA is the autoscaler each poisoning case's file holds.
const poisonHPA = `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web, namespace: shop}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 2
  maxReplicas: 10
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
`

// poisonCase is a repository of one source kind whose autoscaler comes
// from file; the other files set the source up.
type poisonCase struct {
	name  string
	file  string
	files map[string]string
	args  []string
}

var poisonCases = []poisonCase{
	{name: "kustomize", file: "app/hpa.yaml", files: map[string]string{
		"app/kustomization.yaml": "resources:\n- hpa.yaml\n"}},
	{name: "plain", file: "plain/hpa.yaml"},
	{name: "chart", file: "charts/web/templates/hpa.yaml", files: map[string]string{
		"charts/web/Chart.yaml": "apiVersion: v2\nname: web\nversion: 0.1.0\n"}},
	{name: "flux", file: "apps/web/hpa.yaml", files: map[string]string{
		"clusters/prod/apps.yaml": "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: apps, namespace: flux-system}\n" +
			"spec:\n  interval: 10m\n  path: ./apps/web\n  prune: true\n  sourceRef: {kind: GitRepository, name: flux-system}\n"}},
	{name: "argo", file: "apps/web/hpa.yaml", files: map[string]string{
		"argocd/web.yaml": "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: web, namespace: argocd}\n" +
			"spec:\n  project: default\n  source: {repoURL: 'https://github.com/example/poison', path: apps/web, targetRevision: HEAD}\n" +
			"  destination: {server: 'https://kubernetes.default.svc', namespace: shop}\n"},
		args: []string{"--repo-url", "https://github.com/example/poison"}},
}

// TestCachePoisoning is issue 31's poisoning sequence for every source
// kind: a pull request turns the file an autoscaler comes from into a
// symlink out of the repository (to the very same bytes), its run is
// refused the file and stores its render; the base run, with the same
// cache directory and the file regular again, must list the autoscaler
// as a run without a cache does, and the other way round. Before the
// refusal was part of the key, the base was served the head's render and
// lost its autoscaler (the comment then showed a removal as no change).
func TestCachePoisoning(t *testing.T) {
	for _, c := range poisonCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			root, cache := filepath.Join(dir, "repo"), filepath.Join(dir, "cache")
			for name, body := range c.files {
				writeFile(t, filepath.Join(root, name), body)
			}
			outside := filepath.Join(dir, "outside.yaml")
			writeFile(t, outside, poisonHPA)
			target := filepath.Join(root, c.file)
			regular := func() { _ = os.Remove(target); writeFile(t, target, poisonHPA) }
			symlink := func() {
				_ = os.Remove(target)
				if err := os.Symlink(outside, target); err != nil {
					t.Fatal(err)
				}
			}
			list := func(cached bool) []string {
				args := append([]string{"list", root}, c.args...)
				if cached {
					args = append(args, "--cache", "--cache-dir", cache)
				}
				_, out, errOut := runArgs(t, args...)
				if !strings.Contains(out, "Autoscalers:") {
					t.Fatalf("capreport %s: %s%s", strings.Join(args, " "), out, errOut)
				}
				return autoscalerIDs(out)
			}
			regular()
			withFile := list(false)
			if !slices.Equal(withFile, []string{"shop/HorizontalPodAutoscaler/web"}) {
				t.Fatalf("without a cache the regular file gives %q", withFile)
			}
			symlink()
			refused := list(false)
			if len(refused) != 0 {
				t.Fatalf("without a cache the symlink out gives %q, want nothing", refused)
			}
			for i, step := range []struct {
				set  func()
				want []string
			}{{symlink, refused}, {regular, withFile}, {symlink, refused}, {regular, withFile}} {
				step.set()
				if got := list(true); !slices.Equal(got, step.want) {
					t.Errorf("run %d with the cache: %q, want %q as without it", i+1, got, step.want)
				}
			}
		})
	}
}

var idLine = regexp.MustCompile(`(?m)^\s+id\s+(\S+)$`)

// autoscalerIDs are the ids `capreport list` prints, sorted.
func autoscalerIDs(out string) []string {
	ids := []string{}
	for _, m := range idLine.FindAllStringSubmatch(out, -1) {
		ids = append(ids, m[1])
	}
	slices.Sort(ids)
	return ids
}

// TestHostileCacheDirectory: a cache directory filled by one run and then
// made hostile (every entry a FIFO, a link to /dev/zero or a 3 GB sparse
// file; every key directory a symlink out of the cache) changes nothing in
// the next run's report, only its speed: the run finishes in seconds,
// never waits on a FIFO, reads nothing whole, and writes nothing through
// the symlinks (issue 31).
func TestHostileCacheDirectory(t *testing.T) {
	testutil.SkipIfShort(t)
	bin := buildCapreport(t)
	shop := filepath.Join(testutil.RepoRoot(t), "examples", "shop")
	report := func(cache string) ([]contract.Workload, time.Duration) {
		t.Helper()
		args := []string{shop, "--format", "json", "--fail-on", "never"}
		if cache != "" {
			args = append(args, "--cache", "--cache-dir", cache)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		start := time.Now()
		out, err := exec.CommandContext(ctx, bin, args...).Output()
		if err != nil {
			t.Fatalf("capreport %s: %v", strings.Join(args, " "), err)
		}
		var r contract.Report
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatal(err)
		}
		return r.Workloads, time.Since(start)
	}
	want, _ := report("")
	filled := filepath.Join(t.TempDir(), "filled")
	if got, _ := report(filled); !reflect.DeepEqual(got, want) {
		t.Fatal("a run that fills the cache reports otherwise than one without")
	}
	for _, c := range []struct {
		name   string
		plant  func(t *testing.T, path string, d fs.DirEntry, outside string)
		onDirs bool
	}{
		{"entries are FIFOs", func(t *testing.T, p string, _ fs.DirEntry, _ string) {
			replace(t, p, func() error { return syscall.Mkfifo(p, 0o644) })
		}, false},
		{"entries link to /dev/zero", func(t *testing.T, p string, _ fs.DirEntry, _ string) {
			replace(t, p, func() error { return os.Symlink("/dev/zero", p) })
		}, false},
		{"entries are 3 GB sparse files", func(t *testing.T, p string, _ fs.DirEntry, _ string) {
			replace(t, p, func() error { return os.Truncate(p, 3<<30) })
		}, false},
		{"key directories link out", func(t *testing.T, p string, _ fs.DirEntry, outside string) {
			replace(t, p, func() error { return os.Symlink(outside, p) })
		}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			cache := filepath.Join(t.TempDir(), "cache")
			outside := t.TempDir()
			copyTree(t, filled, cache)
			plantAll(t, cache, c.onDirs, func(p string, d fs.DirEntry) { c.plant(t, p, d, outside) })
			got, took := report(cache)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("the report changed with a hostile cache")
			}
			if took > 30*time.Second {
				t.Errorf("took %v", took)
			}
			if ents, _ := os.ReadDir(outside); len(ents) != 0 {
				t.Errorf("written outside the cache through its symlinks: %v", ents)
			}
		})
	}
}

// replace makes p anew with make (the old file or tree removed first;
// truncating a copy keeps its name).
func replace(t *testing.T, p string, make func() error) {
	t.Helper()
	if err := os.RemoveAll(p); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := make(); err != nil {
		// Truncate needs the file: make it and try again.
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := make(); err != nil {
			t.Fatal(err)
		}
	}
}

// plantAll calls plant on every regular file of root (onDirs false) or on
// every directory two levels under a cache's kind directory (onDirs: the
// key directories, render/ab/… and bills/ab), deepest first.
func plantAll(t *testing.T, root string, onDirs bool, plant func(string, fs.DirEntry)) {
	t.Helper()
	var paths []string
	var ents []fs.DirEntry
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		depth := strings.Count(rel, string(filepath.Separator))
		if (!onDirs && d.Type().IsRegular()) || (onDirs && d.IsDir() && depth == 1) {
			paths, ents = append(paths, p), append(ents, d)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatal("the filled cache holds nothing to plant")
	}
	for i := len(paths) - 1; i >= 0; i-- {
		plant(paths[i], ents[i])
	}
}

// copyTree copies the regular files and directories of from to to.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
