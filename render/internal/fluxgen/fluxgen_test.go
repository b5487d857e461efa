package fluxgen

import (
	"path"
	"path/filepath"
	"strings"
	"testing"

	fluxkustomize "github.com/fluxcd/pkg/kustomize"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/capreport/capreport/internal/testutil"
	"github.com/capreport/capreport/render/internal/repofs"
)

// TestFluxGenerateManifestAsFlux: the copy of Flux's generator over the
// Repo, in memory, makes what fluxcd/pkg/kustomize's makes on disk, byte
// for byte, and fails where it fails with the same message.
func TestFluxGenerateManifestAsFlux(t *testing.T) {
	deploy := func(name string) string {
		return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: " + name + "\n"
	}
	repoFiles := map[string]string{
		"gen/a.yaml":                         deploy("a"),
		"gen/b.yml":                          deploy("b"),
		"gen/notes.txt":                      "not a manifest\n",
		"gen/skip/ignored.yaml":              deploy("ignored"),
		"gen/.sourceignore":                  "skip/\n",
		"gen/sub/kustomization.yaml":         "resources: [c.yaml]\n",
		"gen/sub/c.yaml":                     deploy("c"),
		"gen/deep/d.yaml":                    deploy("d"),
		"gen/.flux.yaml":                     deploy("flux"),
		"empty/README.md":                    "nothing\n",
		"bad/x.yaml":                         "apiVersion: v1\nkind: [\n",
		"kust/kustomization.yaml":            "resources: [web.yaml, ../comp]\nimages:\n- name: web\n  newTag: \"1\"\n",
		"kust/web.yaml":                      deploy("web"),
		"comp/kustomization.yaml":            "kind: Component\n",
		"nores/kustomization.yaml":           "namespace: x\n",
		"missing/kustomization.yaml":         "resources: [gone.yaml]\n",
		"crds/kustomization.yaml":            "resources: [web.yaml]\ncrds: [crd.yaml]\n",
		"crds/web.yaml":                      deploy("web"),
		"crds/crd.yaml":                      "kind: CustomResourceDefinition\n",
		"filtered/kustomization.yaml":        "resources: [web.yaml, logo.png]\n",
		"filtered/web.yaml":                  deploy("web"),
		"filtered/logo.png":                  "png",
		"components/base/kustomization.yaml": "resources: [web.yaml]\n",
		"components/base/web.yaml":           deploy("web"),
		"components/c1/kustomization.yaml":   "kind: Component\n",
	}
	spec := func(y string) map[string]any {
		var ks map[string]any
		if err := sigsyaml.Unmarshal([]byte("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: k}\nspec:\n"+y), &ks); err != nil {
			t.Fatal(err)
		}
		return ks
	}
	cases := []struct {
		name, dir, spec string
	}{
		{"generated, ignore files and defaults", "gen", "  path: ./gen\n"},
		{"generated, nothing to list", "empty", "  path: ./empty\n"},
		{"generated, a file that does not decode", "bad", "  path: ./bad\n"},
		{"amended", "kust", "  targetNamespace: prod\n  namePrefix: p-\n  nameSuffix: -s\n  images:\n  - {name: web, newName: reg/web}\n  - {name: other, newTag: \"2\"}\n" +
			"  patches:\n  - patch: |\n      - op: add\n        path: /metadata/labels\n        value: {a: b}\n    target: {kind: Deployment, name: web}\n" +
			"  patchesStrategicMerge:\n  - {apiVersion: apps/v1, kind: Deployment, metadata: {name: web}}\n" +
			"  patchesJson6902:\n  - target: {version: v1, kind: Deployment, name: web}\n    patch:\n    - {op: remove, path: /spec}\n" +
			"  buildMetadata: [originAnnotations]\n"},
		{"no resources", "nores", "  path: ./nores\n"},
		{"a resource that does not exist", "missing", "  path: ./missing\n"},
		{"crds", "crds", "  path: ./crds\n"},
		{"ignored resource", "filtered", "  path: ./filtered\n"},
		{"components, one missing and ignored", "components/base", "  components: [../c1, ../c2]\n  ignoreMissingComponents: true\n"},
		{"components, one missing", "components/base", "  components: [../c1, ../c2]\n"},
		{"a remote component", "components/base", "  components: [https://github.com/o/r]\n"},
		{"a patch that is not an object", "kust", "  patches: [oops]\n"},
		{"a name prefix that is not a string", "kust", "  namePrefix: [x]\n"},
	}
	root := t.TempDir()
	testutil.WriteTree(t, root, repoFiles)
	disk, err := repofs.Open(filesys.MakeFsOnDisk(), true, root, maxFileBytes)
	if err != nil {
		t.Fatal(err)
	}
	mem, err := repofs.Open(memFS(t, repoFiles), false, memRoot, maxFileBytes)
	if err != nil {
		t.Fatal(err)
	}
	// One run's memo serves every case, on disk and in memory, as it
	// serves every Kustomization of a run.
	memScans, diskScans := NewScans(), NewScans()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ks := spec(c.spec)
			gen := fluxkustomize.NewGeneratorWithIgnore(disk.Root, DefaultIgnore, unstructured.Unstructured{Object: ks})
			want, _, _, werr := gen.GenerateManifest(disk.Abs(c.dir))
			for _, r := range []struct {
				repo  *repofs.Repo
				scans *Scans
			}{{mem, memScans}, {mem, NewScans()}, {disk, diskScans}} {
				got, gerr := Generate(r.repo, r.scans, spec(c.spec), DefaultIgnore, r.repo.Abs(c.dir))
				sameGeneration(t, disk.Root, r.repo.Root, want, werr, got, gerr)
			}
		})
	}
}

func sameGeneration(t *testing.T, fluxRoot, root string, want []byte, werr error, got []byte, gerr error) {
	t.Helper()
	if werr != nil || gerr != nil {
		w, g := "<nil>", "<nil>"
		if werr != nil {
			w = strings.ReplaceAll(werr.Error(), fluxRoot, "ROOT")
		}
		if gerr != nil {
			g = strings.ReplaceAll(gerr.Error(), root, "ROOT")
		}
		if w != g {
			t.Errorf("error %s, Flux's %s", g, w)
		}
		return
	}
	if w, g := strings.ReplaceAll(string(want), filepath.ToSlash(fluxRoot), "ROOT"), strings.ReplaceAll(string(got), filepath.ToSlash(root), "ROOT"); w != g {
		t.Errorf("generated\n%s\nFlux's\n%s", g, w)
	}
}

// TestFluxGenerateDecodesWithinBounds: the parent decodes a file the
// generator lists only when it is small and the run's budget holds; any
// other is listed undecoded, and each is read once per run.
func TestFluxGenerateDecodesWithinBounds(t *testing.T) {
	bad := "apiVersion: v1\nkind: [\n"
	large := bad + "# " + strings.Repeat("x", fluxDecodeBytes) + "\n"
	files := map[string]string{"small/x.yaml": bad, "large/x.yaml": large, "spent/x.yaml": bad}
	mem, err := repofs.Open(memFS(t, files), false, memRoot, maxFileBytes)
	if err != nil {
		t.Fatal(err)
	}
	scans := NewScans()
	ks := map[string]any{"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization", "spec": map[string]any{}}
	if _, err := Generate(mem, scans, ks, DefaultIgnore, mem.Abs("small")); err == nil || !strings.Contains(err.Error(), "failed to decode Kubernetes YAML") {
		t.Errorf("a small file that does not decode: %v, want the generator's error", err)
	}
	got, err := Generate(mem, scans, ks, DefaultIgnore, mem.Abs("large"))
	if err != nil || !strings.Contains(string(got), "x.yaml") {
		t.Errorf("a file over %d bytes is listed undecoded for the build to decide; got %q, %v", fluxDecodeBytes, got, err)
	}
	scans.budget = 4
	if got, err := Generate(mem, scans, ks, DefaultIgnore, mem.Abs("spent")); err != nil || !strings.Contains(string(got), "x.yaml") {
		t.Errorf("past the run's budget a file is listed undecoded; got %q, %v", got, err)
	}
	if len(scans.decoded) != 1 {
		t.Errorf("decoded %d files, want only the small one", len(scans.decoded))
	}
}

// maxFileBytes is render's DefaultMaxFileBytes, the largest file a Repo
// reads.
const maxFileBytes = 10 << 20

// memRoot is the repository's directory in memFS.
const memRoot = "/repo"

// memFS is an in-memory file system holding files under memRoot.
func memFS(t testing.TB, files map[string]string) filesys.FileSystem {
	t.Helper()
	fsys := filesys.MakeFsInMemory()
	for name, content := range files {
		if err := fsys.WriteFile(path.Join(memRoot, name), []byte(content)); err != nil {
			t.Fatalf("writing %s: %v", name, err)
		}
	}
	return fsys
}
