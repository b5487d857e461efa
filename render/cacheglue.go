package render

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/internal/buildid"
	"github.com/capreport/capreport/render/cache"
)

// openCache is the run's render cache (render/cache), nil without
// Options.RenderCacheDir.
func openCache(rd *renderer) *cache.Cache {
	if rd.opts.RenderCacheDir == "" {
		return nil
	}
	return cache.Open(cache.Options{Dir: rd.opts.RenderCacheDir, Salt: cacheSalt(rd), Repo: rd.repo,
		OnDisk: isDisk(rd.opts.FS), Checkout: rd.opts.Checkout})
}

// cacheKey is the directory of spec's entries, "" when spec cannot be
// encoded. The spec is written as JSON, which orders map keys: gob writes
// maps in Go's random order, and a delivered source's spec holds maps.
func cacheKey(c *cache.Cache, spec SourceSpec) string {
	data, err := json.Marshal(toWire(spec))
	if err != nil {
		return ""
	}
	return c.Key(data)
}

// cacheStore keeps out under key when it can be reused: a render that
// finished and read only inside the root.
func cacheStore(c *cache.Cache, key string, out sourceOut) {
	if cacheable(out) {
		c.Store(key, cache.Entry{Objects: out.Objects, Result: out.Result, Covered: out.Covered, Dropped: out.Dropped, Inputs: out.Inputs})
	}
}

// fromEntry is the render a cache entry holds.
func fromEntry(e cache.Entry) sourceOut {
	return sourceOut{Objects: e.Objects, Result: e.Result, Covered: e.Covered, Dropped: e.Dropped}
}

func cacheable(out sourceOut) bool {
	if !out.Recorded {
		return false
	}
	switch out.Result.Status {
	case StatusRendered, StatusSkipped:
	default:
		return false
	}
	for _, f := range out.Result.Findings {
		switch f.Check {
		case check.RenderTimeout, check.RenderCancelled, check.RenderPanic, check.RenderCrashed, check.RenderMemory:
			return false
		}
	}
	return true
}

// cacheSalt is what every key of a run shares: the capreport build (its
// executable's digest, so that a rebuilt binary never reads an older
// one's renders), the entries' format, the options every source renders
// with, and the scope.
func cacheSalt(rd *renderer) string {
	o := rd.opts
	shared := struct {
		Format, Build, Scope  string
		KubeVersion           string
		APIVersions, RepoURLs []string
		SourceMaps            []SourceMap
		Helm                  HelmValues
		MaxFileBytes          int64
		MaxObjects            int
		NoGitOps, LocatedOnly bool
		// Kept: entries hold what Keep kept (one Keep per directory).
		Kept, StubCRDs bool
	}{cache.Format, buildid.Digest(), "", o.KubeVersion, o.APIVersions, o.RepoURLs, o.SourceMaps, o.Helm, o.MaxFileBytes, o.MaxObjects, o.NoGitOps, o.LocatedOnly, o.Keep != nil, o.StubCRDs}
	if rel, ok := cache.RelTo(rd.repo.Root, rd.scope); ok {
		shared.Scope = rel
	}
	data, err := json.Marshal(shared) // JSON: map keys in order
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// specPaths are the specs' root-relative paths, in order.
func specPaths(specs []SourceSpec) []string {
	paths := make([]string, len(specs))
	for i, s := range specs {
		paths[i] = s.Path
	}
	return paths
}
