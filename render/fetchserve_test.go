package render

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"helm.sh/helm/v3/pkg/chart"
	helmrepo "helm.sh/helm/v3/pkg/repo"
	sigsyaml "sigs.k8s.io/yaml"
)

// Real servers on loopback for the fetch tests: a Helm chart repository
// (index.yaml and archives, optionally behind basic auth) and a pull-only
// OCI registry speaking the distribution API that Helm's registry client
// (oras) uses. The registry is written here rather than imported:
// distribution/v3's handler drags in cloud storage SDKs, redis and
// OpenTelemetry, and only pulls are needed.

// testChart is one chart to serve.
type testChart struct {
	name, version string
	files         map[string]string // below the chart directory, Chart.yaml added
	extra         string            // added to Chart.yaml
	lib           bool
}

// archive packs the chart as `helm package` does: <name>/... in a tgz.
func (c testChart) archive(t *testing.T) []byte {
	t.Helper()
	typ := ""
	if c.lib {
		typ = "type: library\n"
	}
	files := map[string]string{"Chart.yaml": fmt.Sprintf("apiVersion: v2\nname: %s\nversion: %s\n%s%s", c.name, c.version, typ, c.extra)}
	for k, v := range c.files {
		files[k] = v
	}
	entries := make([]tarEntry, 0, len(files))
	for k, v := range files {
		entries = append(entries, tarEntry{name: c.name + "/" + k, body: v})
	}
	return tgz(t, entries)
}

type tarEntry struct {
	name, body, link string
	typ              byte
}

func tgz(t *testing.T, entries []tarEntry) []byte {
	t.Helper()
	sort.Slice(entries, func(i, j int) bool { return entries[i].name < entries[j].name })
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		typ := e.typ
		if typ == 0 {
			typ = tar.TypeReg
		}
		hd := &tar.Header{Name: e.name, Mode: 0o644, Size: int64(len(e.body)), Typeflag: typ, Linkname: e.link}
		if typ != tar.TypeReg {
			hd.Size = 0
		}
		if err := tw.WriteHeader(hd); err != nil {
			t.Fatal(err)
		}
		if typ == tar.TypeReg {
			if _, err := tw.Write([]byte(e.body)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func sha256hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// helmRepo is an httptest chart repository.
type helmRepo struct {
	*httptest.Server
	mu       sync.Mutex
	files    map[string][]byte
	index    *helmrepo.IndexFile
	hits     atomic.Int64
	user     string // basic auth when set
	password string
	// badDigest makes the index name a wrong digest for every chart.
	badDigest bool
}

func newHelmRepo(t *testing.T, charts ...testChart) *helmRepo {
	t.Helper()
	h := &helmRepo{files: map[string][]byte{}, index: helmrepo.NewIndexFile()}
	h.Server = httptest.NewServer(http.HandlerFunc(h.serve))
	t.Cleanup(h.Close)
	for _, c := range charts {
		h.add(t, c)
	}
	return h
}

func (h *helmRepo) add(t *testing.T, c testChart) {
	t.Helper()
	data := c.archive(t)
	name := fmt.Sprintf("%s-%s.tgz", c.name, c.version)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.files[name] = data
	md := &chart.Metadata{APIVersion: "v2", Name: c.name, Version: c.version}
	digest := sha256hex(data)
	if h.badDigest {
		digest = sha256hex([]byte("something else"))
	}
	if err := h.index.MustAdd(md, name, "", digest); err != nil {
		t.Fatal(err)
	}
	h.index.SortEntries()
}

func (h *helmRepo) serve(w http.ResponseWriter, r *http.Request) {
	h.hits.Add(1)
	if h.user != "" {
		if u, p, ok := r.BasicAuth(); !ok || u != h.user || p != h.password {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	name := strings.TrimPrefix(r.URL.Path, "/")
	if name == "index.yaml" {
		data, _ := sigsyaml.Marshal(h.index)
		_, _ = w.Write(data)
		return
	}
	if data, ok := h.files[name]; ok {
		_, _ = w.Write(data)
		return
	}
	http.NotFound(w, r)
}

// ociRegistry is a pull-only OCI distribution registry.
type ociRegistry struct {
	*httptest.Server
	mu        sync.Mutex
	blobs     map[string][]byte            // by digest
	manifests map[string]map[string]string // repo -> tag -> manifest digest
	hits      atomic.Int64
}

const (
	helmConfigMediaType = "application/vnd.cncf.helm.config.v1+json"
	helmChartMediaType  = "application/vnd.cncf.helm.chart.content.v1.tar+gzip"
	ociManifestType     = "application/vnd.oci.image.manifest.v1+json"
)

func newOCIRegistry(t *testing.T) *ociRegistry {
	o := &ociRegistry{blobs: map[string][]byte{}, manifests: map[string]map[string]string{}}
	o.Server = httptest.NewServer(http.HandlerFunc(o.serve))
	t.Cleanup(o.Close)
	return o
}

// host is the registry's host:port, as oci:// references name it.
func (o *ociRegistry) host() string { return strings.TrimPrefix(o.URL, "http://") }

func (o *ociRegistry) putBlob(data []byte) string {
	d := "sha256:" + sha256hex(data)
	o.blobs[d] = data
	return d
}

// push stores a chart as <repo>:<version> and returns the manifest digest.
func (o *ociRegistry) push(t *testing.T, repoPath string, c testChart) string {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	data := c.archive(t)
	cfg, _ := json.Marshal(map[string]string{"apiVersion": "v2", "name": c.name, "version": c.version})
	manifest, _ := json.Marshal(map[string]any{
		"schemaVersion": 2, "mediaType": ociManifestType,
		"config": map[string]any{"mediaType": helmConfigMediaType, "digest": o.putBlob(cfg), "size": len(cfg)},
		"layers": []any{map[string]any{"mediaType": helmChartMediaType, "digest": o.putBlob(data), "size": len(data)}},
	})
	d := o.putBlob(manifest)
	if o.manifests[repoPath] == nil {
		o.manifests[repoPath] = map[string]string{}
	}
	o.manifests[repoPath][strings.ReplaceAll(c.version, "+", "_")] = d
	return d
}

func (o *ociRegistry) serve(w http.ResponseWriter, r *http.Request) {
	o.hits.Add(1)
	o.mu.Lock()
	defer o.mu.Unlock()
	p := strings.TrimPrefix(r.URL.Path, "/v2/")
	if p == "" || r.URL.Path == "/v2" {
		w.WriteHeader(http.StatusOK)
		return
	}
	switch {
	case strings.HasSuffix(p, "/tags/list"):
		name := strings.TrimSuffix(p, "/tags/list")
		tags := []string{}
		for tag := range o.manifests[name] {
			tags = append(tags, tag)
		}
		sort.Strings(tags)
		_ = json.NewEncoder(w).Encode(map[string]any{"name": name, "tags": tags})
	case strings.Contains(p, "/manifests/"):
		i := strings.LastIndex(p, "/manifests/")
		name, ref := p[:i], p[i+len("/manifests/"):]
		d := ref
		if !strings.HasPrefix(ref, "sha256:") {
			d = o.manifests[name][ref]
		}
		data, ok := o.blobs[d]
		if !ok {
			http.Error(w, `{"errors":[{"code":"MANIFEST_UNKNOWN"}]}`, http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", ociManifestType)
		w.Header().Set("Docker-Content-Digest", d)
		w.Header().Set("Content-Length", fmt.Sprint(len(data)))
		if r.Method != http.MethodHead {
			_, _ = w.Write(data)
		}
	case strings.Contains(p, "/blobs/"):
		d := p[strings.LastIndex(p, "/blobs/")+len("/blobs/"):]
		data, ok := o.blobs[d]
		if !ok {
			http.Error(w, `{"errors":[{"code":"BLOB_UNKNOWN"}]}`, http.StatusNotFound)
			return
		}
		w.Header().Set("Docker-Content-Digest", d)
		w.Header().Set("Content-Length", fmt.Sprint(len(data)))
		if r.Method != http.MethodHead {
			_, _ = w.Write(data)
		}
	default:
		http.NotFound(w, r)
	}
}
