package render

import (
	"context"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/internal/testutil"
)

// With a file system other than the disk, Isolation renders in-process (a
// worker could not see it): the kustomize deprecation notice a worker
// reports as a render-log finding is then only printed.
func TestIsolationNeedsTheDisk(t *testing.T) {
	files := map[string]string{"k/kustomization.yaml": "commonLabels: {app: web}\nresources: [cm.yaml]\n", "k/cm.yaml": checksCM}
	logged := func(res *Result) bool {
		for _, f := range res.Findings {
			if f.Check == check.RenderLog {
				return true
			}
		}
		return false
	}
	root := t.TempDir()
	testutil.WriteTree(t, root, files)
	res, err := Render(context.Background(), root, isolated(DefaultOptions()))
	if err != nil {
		t.Fatal(err)
	}
	if !logged(res) {
		t.Fatalf("on disk, no worker rendered the source: %s", dumpFindings(res.Findings))
	}
	res = renderMem(t, files, ".", isolated(DefaultOptions()))
	if logged(res) || len(res.Sources) != 1 || res.Sources[0].Status != StatusRendered {
		t.Errorf("in memory, want the source rendered in-process: %+v %s", res.Sources, dumpFindings(res.Findings))
	}
}

// recordingFS records the files and directories read through it: what a
// render cache keys a render on.
type recordingFS struct {
	filesys.FileSystem
	mu    sync.Mutex
	files map[string]bool
}

func (r *recordingFS) ReadFile(p string) ([]byte, error) {
	r.mu.Lock()
	r.files[p] = true
	r.mu.Unlock()
	return r.FileSystem.ReadFile(p)
}

// Every file a render reads goes through the file system it is given: a
// wrapper sees the chart, its value files, the kustomization and what it
// lists, and the plain manifest, and nothing the render does not look at.
func TestEveryReadGoesThroughTheFS(t *testing.T) {
	files := map[string]string{
		"c/Chart.yaml":            chartYAML,
		"c/values.yaml":           "n: 1\n",
		"c/prod.yaml":             "n: 2\n",
		"c/.helmignore":           "*.md\n",
		"c/NOTES.md":              "ignored by .helmignore\n",
		"c/templates/cm.yaml":     checksCM,
		"k/kustomization.yaml":    "resources: [../base, hpa.yaml]\n",
		"k/hpa.yaml":              hpaDoc("web", "3"),
		"base/kustomization.yaml": "resources: [cm.yaml]\n",
		"base/cm.yaml":            checksCM,
		"plain/p.yaml":            hpaDoc("p", "2"),
		"README.md":               "not read\n",
	}
	rec := &recordingFS{FileSystem: memFS(t, files), files: map[string]bool{}}
	opts := DefaultOptions()
	opts.FS = rec
	opts.Sources = []SourceSpec{{Path: "c", Name: "prod", Helm: HelmValues{ValuesFiles: []string{"prod.yaml"}}}}
	res, err := Render(context.Background(), memRoot, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Sources {
		if s.Status != StatusRendered {
			t.Errorf("%s: %s %s", s.Path, s.Status, s.Reason)
		}
	}
	var got []string
	for p := range rec.files {
		got = append(got, p)
	}
	sort.Strings(got)
	var want []string
	for name := range files {
		// c/NOTES.md is read in memory though the chart ignores it: its size
		// is checked all the same (on disk, by stat).
		if name != "README.md" {
			want = append(want, memPath(name))
		}
	}
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Errorf("read\n  %v\nwant\n  %v", got, want)
	}
}

// diskWrapper is a wrapper of the disk that says so.
type diskWrapper struct{ filesys.FileSystem }

func (diskWrapper) OnDisk() bool { return true }

// A file system that reads the disk and says so (OnDisk) has its symlinks
// evaluated and refused like the disk's, and renders in-process.
func TestOnDiskWrapperKeepsSymlinkChecks(t *testing.T) {
	tmp := t.TempDir()
	root := filepath.Join(tmp, "repo")
	testutil.WriteTree(t, root, map[string]string{"ok/cm.yaml": checksCM})
	testutil.WriteTree(t, tmp, map[string]string{"secret.yaml": checksCM})
	testutil.Symlink(t, filepath.Join(tmp, "secret.yaml"), filepath.Join(root, "leak.yaml"))
	opts := isolated(DefaultOptions())
	opts.FS = diskWrapper{filesys.MakeFsOnDisk()}
	res, err := Render(context.Background(), root, opts)
	if err != nil {
		t.Fatal(err)
	}
	escaped := false
	for _, f := range res.Findings {
		escaped = escaped || f.Check == check.SymlinkEscape && strings.HasPrefix(f.Message, "leak.yaml")
	}
	if !escaped || !hasObject(res, "ConfigMap", "", "cm") {
		t.Errorf("want leak.yaml refused and ok/cm.yaml rendered: %+v %s", res.Sources, dumpFindings(res.Findings))
	}
}
