package render

import (
	"context"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// memFSFromDir copies the regular files of dir into an in-memory file
// system, under root.
func memFSFromDir(t testing.TB, dir, root string) filesys.FileSystem {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !d.Type().IsRegular() {
			t.Fatalf("%s is not a regular file: the disk and memory would differ", p)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return memFSAt(t, root, files)
}

// sameOnDiskAndInMemory renders the repository at root, from path inside
// it, once from the disk and once from a copy in memory (in a directory of
// the same name, which messages may quote), and wants the same result.
func sameOnDiskAndInMemory(t *testing.T, root, path string, opts Options) *Result {
	t.Helper()
	disk := opts
	disk.FS = filesys.MakeFsOnDisk()
	disk.Root = root
	want, err := Render(context.Background(), filepath.Join(root, filepath.FromSlash(path)), disk)
	if err != nil {
		t.Fatal(err)
	}
	mem := opts
	mem.Root = "/" + filepath.Base(root)
	mem.FS = memFSFromDir(t, root, mem.Root)
	got, err := Render(context.Background(), filepath.Join(mem.Root, filepath.FromSlash(path)), mem)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(deterministic(want), deterministic(got)); d != "" {
		t.Errorf("%s from %s: in memory (+) the render differs from the disk's (-):\n%s", root, path, d)
	}
	return want
}

// deterministic drops from res what differs between two renders of the
// same repository on the same file system: the data of Secrets (charts
// generate keys and certificates with genCA and randAlphaNum).
func deterministic(res *Result) *Result {
	out := *res
	out.Objects = slices.Clone(res.Objects)
	for i, o := range out.Objects {
		if o.Kind == "Secret" {
			doc := maps.Clone(o.Doc)
			delete(doc, "data")
			delete(doc, "stringData")
			out.Objects[i].Doc = doc
		}
	}
	return &out
}

// TestSameOnDiskAndInMemory: the GitOps fixtures (Flux's generator on disk
// against its copy over the Repo in memory, Argo CD's directory sources,
// ApplicationSet git generators, the Helm Operator), the extraction
// fixture, the hostile fixtures (their symlinks, made by
// TestHostileFixtures, aside), and (without -short) every case of the chart and GitOps
// corpora render the same from the disk and from memory.
func TestSameOnDiskAndInMemory(t *testing.T) {
	type sameCase struct {
		root, path string
		urls       []string
		sources    []SourceSpec
	}
	fixtures := filepath.Join("..", "testdata")
	cases := map[string]sameCase{
		"flux-features":             {root: filepath.Join(fixtures, "gitops", "flux-features"), path: "clusters/prod"},
		"argo-features":             {root: filepath.Join(fixtures, "gitops", "argo-features"), path: ".", urls: []string{"https://github.com/example/argo-features.git"}},
		"helm-operator-get-started": {root: filepath.Join(fixtures, "gitops", "helm-operator-get-started"), path: ".", urls: []string{"git@github.com:fluxcd/helm-operator-get-started"}},
		"extract":                   {root: filepath.Join(fixtures, "extract", "repo"), path: "."},
	}
	hostile, err := os.ReadDir(filepath.Join(fixtures, "hostile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range hostile {
		cases["hostile/"+e.Name()] = sameCase{root: filepath.Join(fixtures, "hostile", e.Name()), path: "."}
	}
	if dir, ok := findCorpus(); ok && !testing.Short() {
		for _, c := range parseCorpusREADME(t, dir) {
			cases["corpus/"+c.name] = sameCase{root: filepath.Join(dir, c.name), path: ".", sources: c.sources()}
		}
		gitops := filepath.Join(dir, "..", "corpus-gitops")
		for name, urls := range map[string][]string{
			"gitops-istio":         nil,
			"flux2-kustomize-helm": nil,
			"adp-basic-appset":     {"https://github.com/dag-andersen/argocd-diff-preview"},
		} {
			if _, err := os.Stat(filepath.Join(gitops, name)); err == nil {
				cases["corpus-gitops/"+name] = sameCase{root: filepath.Join(gitops, name), path: ".", urls: urls}
			}
		}
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			root, err := filepath.Abs(c.root)
			if err != nil {
				t.Fatal(err)
			}
			opts := DefaultOptions()
			opts.RepoURLs, opts.Sources = c.urls, c.sources
			if res := sameOnDiskAndInMemory(t, root, c.path, opts); len(res.Objects) == 0 {
				t.Errorf("nothing rendered")
			}
		})
	}
}
