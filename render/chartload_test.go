package render

import (
	"io/fs"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"helm.sh/helm/v3/pkg/chart/loader"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/capreport/capreport/internal/testutil"
	"github.com/capreport/capreport/render/helm"
	"github.com/capreport/capreport/render/internal/repofs"
)

// chartDirsUnder lists the directories under root that hold a Chart.yaml.
func chartDirsUnder(t *testing.T, root string) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "Chart.yaml" {
			dirs = append(dirs, filepath.Dir(p))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// sameLoad checks that helm.LoadDir loads dir as Helm's loader.LoadDir
// does: the same chart, or the same error.
func sameLoad(t *testing.T, r *repo, dir string) {
	t.Helper()
	want, werr := loader.LoadDir(dir)
	got, gerr := helm.LoadDir(r, dir)
	if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
		t.Fatalf("%s: error %v, LoadDir's %v", dir, gerr, werr)
	}
	if werr == nil && !reflect.DeepEqual(got, want) {
		t.Errorf("%s: loads differently from LoadDir", dir)
	}
}

// TestLoadChartDirAsLoadDir: every chart of the corpus and of testdata
// loads through the repository exactly as loader.LoadDir loads it from the
// disk, subcharts, .helmignore and all.
func TestLoadChartDirAsLoadDir(t *testing.T) {
	roots := []string{filepath.Join("..", "testdata")}
	if c, ok := findCorpus(); ok {
		roots = append(roots, c)
	}
	n := 0
	for _, root := range roots {
		r, err := repofs.Open(filesys.MakeFsOnDisk(), true, root, DefaultMaxFileBytes)
		if err != nil {
			t.Fatal(err)
		}
		for _, dir := range chartDirsUnder(t, r.Root) {
			if helm.CheckTree(r, dir) != nil {
				continue // refused before loading (the hostile fixtures)
			}
			sameLoad(t, r, dir)
			n++
		}
	}
	if n < 5 {
		t.Errorf("compared %d charts only", n)
	}
}

// TestLoadChartDirHelmignoreAndLinks: .helmignore rules (a file, a
// directory), Helm's default of no dotfiles in templates/, a
// byte order mark, and symlinks inside the root (a file and a directory)
// load as LoadDir loads them; in memory, the same chart without its links
// loads the same too.
func TestLoadChartDirHelmignoreAndLinks(t *testing.T) {
	files := map[string]string{
		"c/Chart.yaml":               "\xEF\xBB\xBFapiVersion: v2\nname: c\nversion: 0.1.0\n",
		"c/.helmignore":              "# comment\n*.md\nsecret/\ndrop.tmp\n",
		"c/values.yaml":              "a: 1\n",
		"c/README.md":                "ignored\n",
		"c/keep.tmp":                 "kept\n",
		"c/drop.tmp":                 "dropped\n",
		"c/secret/x.yaml":            "ignored: true\n",
		"c/templates/cm.yaml":        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n",
		"c/templates/.hidden.yaml":   "dropped by Helm's default rule\n",
		"c/charts/sub/Chart.yaml":    "apiVersion: v2\nname: sub\nversion: 0.1.0\n",
		"c/charts/sub/values.yaml":   "b: 2\n",
		"shared/templates/_help.tpl": "{{ define \"h\" }}h{{ end }}\n",
		"shared/extra.yaml":          "linked: true\n",
	}
	root := t.TempDir()
	testutil.WriteTree(t, root, files)
	testutil.Symlink(t, filepath.Join(root, "shared", "templates"), filepath.Join(root, "c", "templates", "shared"))
	testutil.Symlink(t, filepath.Join("..", "shared", "extra.yaml"), filepath.Join(root, "c", "extra.yaml"))
	r, err := repofs.Open(filesys.MakeFsOnDisk(), true, root, DefaultMaxFileBytes)
	if err != nil {
		t.Fatal(err)
	}
	sameLoad(t, r, r.Abs("c"))
	if c, err := helm.LoadDir(r, r.Abs("c")); err != nil || len(c.Templates) != 2 || len(c.Raw) != 9 {
		t.Errorf("want the linked templates and file loaded: %v", err)
	}

	noLinks := t.TempDir()
	testutil.WriteTree(t, noLinks, files)
	want, err := loader.LoadDir(filepath.Join(noLinks, "c"))
	if err != nil {
		t.Fatal(err)
	}
	mem, err := repofs.Open(memFS(t, files), false, memRoot, DefaultMaxFileBytes)
	if err != nil {
		t.Fatal(err)
	}
	got, err := helm.LoadDir(mem, mem.Abs("c"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("in memory, the chart loads differently from LoadDir on disk")
	}
	var names []string
	for _, f := range got.Raw {
		names = append(names, f.Name)
	}
	if w := []string{".helmignore", "Chart.yaml", "charts/sub/Chart.yaml", "charts/sub/values.yaml", "keep.tmp", "templates/cm.yaml", "values.yaml"}; !slices.Equal(names, w) {
		t.Errorf("loaded %v, want %v", names, w)
	}
}
