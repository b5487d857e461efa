package helm

import (
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/capreport/capreport/internal/testutil"
	"github.com/capreport/capreport/render/internal/repofs"
)

// TestChartDirsReadsThroughRepo: Dirs reads Chart.yaml files through
// the repository, so a Chart.yaml that is a symlink out of the root, or is
// over the size limit, is not read, while one linked inside the root is.
func TestChartDirsReadsThroughRepo(t *testing.T) {
	const (
		withAlias = "apiVersion: v2\nname: app\nversion: 0.1.0\ndependencies:\n- name: sub\n  alias: al\n"
		sub       = "apiVersion: v2\nname: sub\nversion: 0.1.0\n"
		secret    = "apiVersion: v2\nname: secret\nversion: 0.1.0\n"
	)
	cases := []struct {
		name     string
		files    map[string]string
		outside  map[string]string
		links    map[string]string // link (root-relative) -> target ("out/..." is outside the root)
		maxBytes int64
		want     []string // subchart keys of chart/
	}{
		{
			name:  "regular files",
			files: map[string]string{"chart/Chart.yaml": withAlias, "chart/charts/sub/Chart.yaml": sub},
			want:  []string{"al", "sub"},
		},
		{
			name:    "Chart.yaml linked out of the root",
			files:   map[string]string{"chart/charts/sub/Chart.yaml": sub},
			outside: map[string]string{"Chart.yaml": withAlias},
			links:   map[string]string{"chart/Chart.yaml": "out/Chart.yaml"},
			want:    []string{"sub"},
		},
		{
			name:    "subchart's Chart.yaml linked out of the root",
			files:   map[string]string{"chart/Chart.yaml": withAlias},
			outside: map[string]string{"secret.yaml": secret},
			links:   map[string]string{"chart/charts/x/Chart.yaml": "out/secret.yaml"},
			want:    []string{},
		},
		{
			name:  "Chart.yaml linked inside the root",
			files: map[string]string{"shared/Chart.yaml": withAlias, "chart/charts/sub/Chart.yaml": sub},
			links: map[string]string{"chart/Chart.yaml": "shared/Chart.yaml"},
			want:  []string{"al", "sub"},
		},
		{
			name:     "Chart.yaml over the size limit",
			files:    map[string]string{"chart/Chart.yaml": withAlias, "chart/charts/sub/Chart.yaml": sub},
			maxBytes: int64(len(sub)),
			want:     []string{"sub"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root, out := t.TempDir(), t.TempDir()
			testutil.WriteTree(t, root, c.files)
			testutil.WriteTree(t, out, c.outside)
			for link, target := range c.links {
				if rel, ok := strings.CutPrefix(target, "out/"); ok {
					target = filepath.Join(out, rel)
				} else {
					target = filepath.Join(root, target)
				}
				testutil.Symlink(t, target, filepath.Join(root, link))
			}
			maxBytes := c.maxBytes
			if maxBytes == 0 {
				maxBytes = 10 << 20 // render.DefaultMaxFileBytes
			}
			r, err := repofs.Open(filesys.MakeFsOnDisk(), true, root, maxBytes)
			if err != nil {
				t.Fatal(err)
			}
			tree := Dirs(r, r.Abs("chart"))
			got := []string{}
			for k := range tree.subs {
				got = append(got, k)
			}
			sort.Strings(got)
			if !slices.Equal(got, c.want) {
				t.Errorf("subcharts %v, want %v", got, c.want)
			}
		})
	}
}
