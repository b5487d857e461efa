package fetch

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"sync"

	"github.com/Masterminds/semver/v3"
	"helm.sh/helm/v3/pkg/repo"
)

// Ref names one chart to fetch.
type Ref struct {
	// RepoURL is an http(s) chart repository (its index.yaml beside it) or
	// an oci:// registry namespace holding the chart as <RepoURL>/<Name>.
	RepoURL string
	Name    string
	// Version is an exact version or a semver constraint ("" is "*").
	Version string
	// Tag, for an OCI artifact, is the tag to pull when no version is
	// given (a Flux OCIRepository's spec.ref.tag).
	Tag string
	// Digest, when set, is the sha256 the archive (http) or the OCI
	// manifest must have; a mismatch is a Digest error.
	Digest string
}

func (r Ref) String() string {
	v := r.Version
	if v == "" {
		v = "*"
	}
	return fmt.Sprintf("%s %s version %s", strings.TrimSuffix(r.RepoURL, "/"), r.Name, v)
}

// Chart is a fetched chart archive.
type Chart struct {
	Data    []byte
	Version string
	Digest  string // sha256 hex of Data
	Cached  bool   // served from the cache, nothing downloaded
}

// Fetcher downloads charts under its limits through its cache. It is safe
// for concurrent use.
type Fetcher struct {
	lim   Limits
	cache *Cache
	auth  []credential

	mu      sync.Mutex
	indexes map[string]*indexResult // by repository URL, once per run
}

type indexResult struct {
	once sync.Once
	idx  *repo.IndexFile
	err  error
}

// New returns a fetcher; credentials come from AuthEnv.
func New(lim Limits, cache *Cache) *Fetcher {
	return &Fetcher{lim: lim, cache: cache, auth: parseAuth(os.Getenv(AuthEnv)), indexes: map[string]*indexResult{}}
}

// Fetch resolves ref to one chart version and returns its archive, from
// the cache when it holds it.
func (f *Fetcher) Fetch(ref Ref) (*Chart, error) {
	u, err := url.Parse(ref.RepoURL)
	if err != nil {
		return nil, &Error{Kind: Failed, Ref: ref.String(), Err: err}
	}
	switch u.Scheme {
	case "oci":
		return f.fetchOCI(ref)
	case "http", "https":
		return f.fetchHTTP(ref)
	}
	return nil, &Error{Kind: Unsafe, Ref: ref.String(), Err: fmt.Errorf("scheme %q is not fetched (http, https and oci only)", u.Scheme)}
}

// exactVersion reports whether v names one version rather than a range.
func exactVersion(v string) bool {
	if v == "" || strings.ContainsAny(v, "<>=~^*xX|, ") {
		return false
	}
	_, err := semver.StrictNewVersion(strings.TrimPrefix(v, "v"))
	return err == nil
}

// isLoopback is a host on this machine: a registry there is spoken to in
// plain HTTP, as Docker treats 127.0.0.0/8 as an insecure registry.
func isLoopback(host string) bool {
	h := host
	if sh, _, err := net.SplitHostPort(host); err == nil {
		h = sh
	}
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
