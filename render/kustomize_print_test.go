package render

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/capreport/capreport/internal/testutil"
	"github.com/capreport/capreport/render/internal/kustscan"
	"github.com/capreport/capreport/render/internal/yamldoc"
	"github.com/capreport/capreport/render/kustomize"
)

// TestBuiltDocsAsPrinted holds kustomize.BuiltDocs, which reads krusty's resource
// nodes, to what capreport decoded before: `kustomize build`'s text
// (ResMap.AsYaml, which goes through JSON) parsed again. Every kustomization
// of the repository's testdata (but hostile) and of ../shared/corpus*, and a fixture of
// the scalars a JSON round trip changes, must give the same documents.
func TestBuiltDocsAsPrinted(t *testing.T) {
	scalars := t.TempDir()
	testutil.WriteTree(t, scalars, map[string]string{
		"kustomization.yaml": "resources: [cm.yaml, deploy.yaml]\ncommonLabels: {team: a}\n",
		"cm.yaml": `apiVersion: v1
kind: ConfigMap
metadata: {name: scalars}
data: {on: "on", yes: "yes", n: "010", t: "2024-01-01"}
binaryData: {}
`,
		"deploy.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  annotations: {when: 2024-01-01T00:00:00Z, ratio: "0.5"}
spec:
  replicas: 3.0
  revisionHistoryLimit: 1e3
  progressDeadlineSeconds: 0x10
  minReadySeconds: 017
  template:
    spec:
      terminationGracePeriodSeconds: 1.5
      containers:
      - name: c
        image: x
        args: [1.0, -0.0, 12345678901234567890, 1e21, .5, null, true, "true", ~]
        resources: {requests: {cpu: 250m, memory: 1.5e9}}
`,
	})
	dirs := []string{scalars}
	root := testutil.RepoRoot(t)
	// testdata/hostile is left out: krusty alone, without capreport's
	// guards, would expand its alias bombs.
	trees := []string{filepath.Join(root, "testdata", "extract"), filepath.Join(root, "testdata", "gitops")}
	least := 10 // the testdata's alone
	if _, ok := testutil.Shared(t, "corpus"); ok {
		trees = append(trees, filepath.Join(root, "..", "shared", "corpus"), filepath.Join(root, "..", "shared", "corpus-gitops"))
		least = 20
	}
	for _, tree := range trees {
		dirs = append(dirs, kustomizationDirs(t, tree)...)
	}
	built := 0
	for _, dir := range dirs {
		kopts := krusty.MakeDefaultOptions()
		rm, err := krusty.MakeKustomizer(kopts).Run(filesys.MakeFsOnDisk(), dir)
		if err != nil {
			continue // remote bases, components, helmCharts, refused fixtures
		}
		text, err := rm.AsYaml()
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		raws, problems, err := yamldoc.Decode(text, DefaultMaxObjects)
		if err != nil || len(problems) > 0 {
			t.Fatalf("%s: decoding the printed build: %v %v", dir, err, problems)
		}
		want := make([]map[string]any, len(raws))
		for i, r := range raws {
			want[i] = r.Doc
		}
		got, err := kustomize.BuiltDocs(rm, DefaultMaxObjects)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: BuiltDocs differs from the printed build\n got %#v\nwant %#v", dir, got, want)
		}
		built++
	}
	if built < least {
		t.Fatalf("only %d kustomizations built; the trees should give at least %d", built, least)
	}
}

// kustomizationDirs lists the directories under tree holding a
// kustomization file; none when tree is absent.
func kustomizationDirs(t *testing.T, tree string) []string {
	t.Helper()
	var dirs []string
	_ = filepath.WalkDir(tree, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if !d.IsDir() && kustscan.IsKustomizationName(d.Name()) {
			dirs = append(dirs, filepath.Dir(p))
		}
		return nil
	})
	if _, err := os.Stat(tree); err == nil && len(dirs) == 0 {
		t.Fatalf("no kustomization under %s", tree)
	}
	return dirs
}
