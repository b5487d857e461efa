package fetch

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

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

// exactVersion reports whether v names one version rather than a range.
func exactVersion(v string) bool {
	if v == "" || strings.ContainsAny(v, "<>=~^*xX|, ") {
		return false
	}
	_, err := semver.StrictNewVersion(strings.TrimPrefix(v, "v"))
	return err == nil
}

// Limits bound everything one fetcher downloads.
type Limits struct {
	// RequestTimeout bounds one HTTP request, body included.
	RequestTimeout time.Duration
	// Deadline ends every fetch of the run (zero: none).
	Deadline time.Time
	// MaxArchiveBytes bounds one downloaded archive (and one index file).
	MaxArchiveBytes int64
	// MaxIndexBytes bounds one repository index.yaml.
	MaxIndexBytes int64
	// Budget is the bytes this fetcher may still download in total; it is
	// shared across a run's workers by the renderer (<= 0: nothing more).
	Budget *atomic.Int64
	// MaxUnpackedBytes and MaxFiles bound one archive's contents.
	MaxUnpackedBytes int64
	MaxFiles         int
}
