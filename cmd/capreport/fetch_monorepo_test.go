package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"
	helmrepo "helm.sh/helm/v3/pkg/repo"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/render"
)

// A chart monorepo whose charts depend on a common library they do not
// vendor (testdata/fetch/bitnami-monorepo, from bitnami/charts; see its
// ORIGIN.md): offline, one grouped finding names the library and every
// chart; with --fetch, the library comes from a Helm repository on
// loopback and every chart renders.

var monorepoCharts = []string{"memcached", "nginx", "valkey"}

// tarDir packs dir as `helm package` lays a chart out: <name>/... in a tgz.
func tarDir(t *testing.T, dir, name string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := tw.WriteHeader(&tar.Header{Name: name + "/" + filepath.ToSlash(rel), Mode: 0o644, Size: int64(len(data))}); err != nil {
			return err
		}
		_, err = tw.Write(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// serveLibrary packages bitnami/common and serves it as a Helm repository.
func serveLibrary(t *testing.T, commonDir string) (*httptest.Server, string) {
	t.Helper()
	md, err := chartutil.LoadChartfile(filepath.Join(commonDir, "Chart.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	archive := tarDir(t, commonDir, md.Name)
	sum := sha256.Sum256(archive)
	idx := helmrepo.NewIndexFile()
	file := md.Name + "-" + md.Version + ".tgz"
	if err := idx.MustAdd(md, file, "", hex.EncodeToString(sum[:])); err != nil {
		t.Fatal(err)
	}
	index, err := sigsyaml.Marshal(idx)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/index.yaml":
			_, _ = w.Write(index)
		case "/" + file:
			_, _ = w.Write(archive)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, md.Version
}

// pointAt rewrites a chart's common dependency to the test repository in
// Chart.yaml and Chart.lock, and recomputes the lock's digest as `helm
// dependency update` would for that repository.
func pointAt(t *testing.T, dir, url, version string) {
	t.Helper()
	const upstream = "oci://registry-1.docker.io/bitnamicharts"
	cy := filepath.Join(dir, "Chart.yaml")
	data, err := os.ReadFile(cy)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cy, bytes.ReplaceAll(data, []byte(upstream), []byte(url)), 0o644); err != nil {
		t.Fatal(err)
	}
	md, err := chartutil.LoadChartfile(cy)
	if err != nil {
		t.Fatal(err)
	}
	lock := &chart.Lock{Dependencies: []*chart.Dependency{{Name: "common", Repository: url, Version: version}}}
	j, _ := json.Marshal([2][]*chart.Dependency{md.Dependencies, lock.Dependencies})
	sum := sha256.Sum256(j)
	lock.Digest = "sha256:" + hex.EncodeToString(sum[:])
	out, _ := sigsyaml.Marshal(lock)
	if err := os.WriteFile(filepath.Join(dir, "Chart.lock"), out, 0o644); err != nil {
		t.Fatal(err)
	}
}

func listJSON(t *testing.T, args ...string) contract.Inventory {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := run(append([]string{"list"}, args...), &cmdutil.IOStreams{Out: &out, ErrOut: &errOut}); code == cmdutil.ExitError {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var got contract.Inventory
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out.String())
	}
	return got
}

func TestFetchChartMonorepo(t *testing.T) {
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS(filepath.Join("..", "..", "testdata", "fetch", "bitnami-monorepo"))); err != nil {
		t.Fatal(err)
	}
	srv, version := serveLibrary(t, filepath.Join(root, "bitnami", "common"))
	for _, c := range monorepoCharts {
		pointAt(t, filepath.Join(root, "bitnami", c), srv.URL, version)
	}

	offline := listJSON(t, root, "--root", root, "--format", "json")
	var grouped []contract.InventoryFinding
	for _, f := range offline.Findings {
		switch f.Check {
		case check.HelmDependencyMissing:
			grouped = append(grouped, f)
		case check.RenderFailed:
			t.Errorf("offline: a render failure outside the group: %s", f.Message)
		}
	}
	if len(grouped) != 1 {
		t.Fatalf("offline: want one grouped helm-dependency-missing finding, got %d: %+v", len(grouped), offline.Findings)
	}
	for _, want := range append([]string{`dependency "common"`, "3 sources", "3 of which failed to render"}, monorepoCharts...) {
		if !strings.Contains(grouped[0].Message, want) {
			t.Errorf("offline: the grouped finding does not say %q: %s", want, grouped[0].Message)
		}
	}

	online := listJSON(t, root, "--root", root, "--format", "json", "--fetch", "--cache-dir", t.TempDir())
	rendered := map[string]bool{}
	for _, s := range online.Sources {
		if s.Status == string(render.StatusRendered) && s.Objects > 0 {
			rendered[s.Path] = true
		}
	}
	for _, c := range monorepoCharts {
		if !rendered["bitnami/"+c] {
			t.Errorf("--fetch: bitnami/%s did not render; sources %+v", c, online.Sources)
		}
	}
	for _, f := range online.Findings {
		if f.Check == check.HelmDependencyMissing || strings.HasPrefix(f.Check, "fetch-") || f.Check == check.RenderFailed {
			t.Errorf("--fetch: %s: %s", f.Check, f.Message)
		}
	}
}
