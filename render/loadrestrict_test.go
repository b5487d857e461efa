package render

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/capreport/capreport/internal/testutil"
	"github.com/capreport/capreport/render/internal/object"
	"github.com/capreport/capreport/render/internal/yamldoc"
)

// Load restrictions as each tool builds: a Flux Kustomization as
// kustomize-controller does (fluxcd/pkg/kustomize Build: LoadRestrictionsNone,
// its secure filesystem bounding reads to the source's root), anything else
// as kustomize build does (LoadRestrictionsRootOnly). The first case is
// fluxcd/pkg/kustomize's own Test_SecureBuild_rel_basedir
// (testdata/fluxbuild/README.md).
func TestLoadRestrictions(t *testing.T) {
	own := t.TempDir()
	testutil.WriteTree(t, own, map[string]string{
		"apps/prod/kustomization.yaml": "resources:\n  - ../../common/cm.yaml\n",
		"common/cm.yaml":               "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared\n",
		"escape/kustomization.yaml":    "resources:\n  - ../../outside.yaml\n",
	})
	cases := []struct {
		name, root, path string
		flux             bool
		want             string // objects "Kind/ns/name=key" or "error: substring"
	}{
		{"upstream relbase, as Flux builds it", filepath.Join("testdata", "fluxbuild", "relbase"), "clusters/staging/flux-system", true,
			"Secret/foo/secret bar=foo foo=bar; ConfigMap/foo/cm"}, // the patch merged into the secret
		{"upstream relbase, as kustomize build does", filepath.Join("testdata", "fluxbuild", "relbase"), "clusters/staging/flux-system", false,
			"error: is not in or below"},
		{"a file outside the folder, as Flux builds it", own, "apps/prod", true, "ConfigMap/shared"},
		{"a file outside the folder, as kustomize build does", own, "apps/prod", false, "error: is not in or below"},
		// The secure filesystem's bound: capreport leaves the entry out, and says so.
		{"leaving the root, as Flux builds it", own, "escape", true, "partial: leaves the repository root"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rd, err := newRenderer(c.root, DefaultOptions().withDefaults())
			if err != nil {
				t.Fatal(err)
			}
			spec := SourceSpec{Path: c.path, Type: SourceKustomize, Explicit: true}
			if c.flux {
				spec.Delivery = &deliverySpec{KustDoc: readKustomization(t, filepath.Join(c.root, c.path)), LoadAnywhere: true}
			}
			out := rd.renderSource(spec)
			got := describeBuild(out)
			kind, text, _ := strings.Cut(c.want, ": ")
			if ok := strings.HasPrefix(got, kind+": ") && strings.Contains(got, text); !ok && got != c.want {
				t.Errorf("got %s\nwant %s", got, c.want)
			}
		})
	}
}

func readKustomization(t *testing.T, dir string) map[string]any {
	t.Helper()
	r, err := newRepo(DefaultOptions()).At(dir)
	if err != nil {
		t.Fatal(err)
	}
	data, err := r.ReadFile(filepath.Join(r.Root, "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	raws, _, err := yamldoc.Decode(data, 1)
	if err != nil || len(raws) != 1 {
		t.Fatalf("kustomization of %s: %v", dir, err)
	}
	return raws[0].Doc
}

func describeBuild(out sourceOut) string {
	if out.Result.Status == StatusFailed {
		return "error: " + out.Result.Reason
	}
	if out.Result.Partial {
		var msgs []string
		for _, f := range out.Result.Findings {
			msgs = append(msgs, f.Message)
		}
		return "partial: " + strings.Join(msgs, "; ")
	}
	var parts []string
	for _, o := range out.Objects {
		s := o.Kind + "/" + object.NSName(o.Namespace, o.Name)
		if sd, ok := o.Doc["stringData"].(map[string]any); ok {
			for _, k := range []string{"bar", "foo"} {
				if v, ok := sd[k]; ok {
					s += " " + k + "=" + v.(string)
				}
			}
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}
