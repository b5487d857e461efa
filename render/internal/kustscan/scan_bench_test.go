package kustscan

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/capreport/capreport/internal/testutil"
	"github.com/capreport/capreport/render/internal/repofs"
)

// corpusRoots is every directory of ../shared/corpus and
// ../shared/corpus-gitops holding a kustomization, with the repository
// it is in: what discovery scans before each build.
func corpusRoots(b *testing.B) (map[string]*repofs.Repo, []string) {
	b.Helper()
	repos := map[string]*repofs.Repo{}
	var dirs []string
	for _, name := range []string{"corpus", "corpus-gitops"} {
		dir, ok := testutil.Shared(b, name)
		if !ok {
			b.Skipf("%s not present", dir)
		}
		r, err := repofs.Open(filesys.MakeFsOnDisk(), true, dir, 1<<20)
		if err != nil {
			b.Fatal(err)
		}
		err = filepath.WalkDir(r.Root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() && KustomizationFile(r, p) != "" {
				repos[p] = r
				dirs = append(dirs, p)
			}
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	return repos, dirs
}

// kustomizeTree reads the kustomization in dir and what it lists the way
// kustomize's own reader does (types.Kustomization.Unmarshal, which
// refuses unknown fields, then FixKustomization), following resources and
// components into directories and collecting the files the other fields
// name: the walk Scan makes, without its checks (remote entries, paths
// leaving the root, functions), and with a struct that cannot be written
// back with the fields it did not know.
func kustomizeTree(dir string, seen map[string]bool, files *[]string) error {
	if seen[dir] {
		return nil
	}
	seen[dir] = true
	var data []byte
	var err error
	for _, n := range konfig.RecognizedKustomizationFileNames() {
		if data, err = os.ReadFile(filepath.Join(dir, n)); err == nil {
			break
		}
	}
	if err != nil {
		return err
	}
	var k types.Kustomization
	if err := k.Unmarshal(data); err != nil {
		return err
	}
	k.FixKustomization()
	for _, e := range append(append([]string{}, k.Resources...), k.Components...) {
		if strings.Contains(e, "://") || strings.HasPrefix(e, "github.com/") {
			continue
		}
		p := filepath.Join(dir, e)
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			if err := kustomizeTree(p, seen, files); err != nil {
				return err
			}
			continue
		}
		*files = append(*files, p)
	}
	named := append(append([]string{}, k.Crds...), k.Configurations...)
	for _, p := range k.Patches {
		named = append(named, p.Path)
	}
	for _, g := range k.ConfigMapGenerator {
		named = append(append(named, g.FileSources...), g.EnvSources...)
	}
	for _, g := range k.SecretGenerator {
		named = append(append(named, g.FileSources...), g.EnvSources...)
	}
	for _, n := range named {
		if n != "" {
			*files = append(*files, filepath.Join(dir, n))
		}
	}
	return nil
}

// BenchmarkScanCorpus walks every kustomization of the corpora with Scan
// and with kustomize's own kustomization reader. refused/op counts the
// roots kustomize's reader refuses that Scan walks (an unknown field,
// which krusty would refuse too, but a GitOps delivery amends first).
func BenchmarkScanCorpus(b *testing.B) {
	repos, dirs := corpusRoots(b)
	b.Run("kustscan", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, d := range dirs {
				sc := New(repos[d])
				sc.Scan(d, false)
			}
		}
		b.ReportMetric(float64(len(dirs)), "roots/op")
	})
	b.Run("kustomize-types", func(b *testing.B) {
		b.ReportAllocs()
		refused := 0
		for b.Loop() {
			refused = 0
			for _, d := range dirs {
				var files []string
				if kustomizeTree(d, map[string]bool{}, &files) != nil {
					refused++
				}
			}
		}
		b.ReportMetric(float64(refused), "refused/op")
	})
}
