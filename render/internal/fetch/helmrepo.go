package fetch

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"

	"helm.sh/helm/v3/pkg/repo"
	sigsyaml "sigs.k8s.io/yaml"
)

// fetchHTTP resolves a chart in an http(s) chart repository as Helm's
// downloader does: the repository's index.yaml, IndexFile.Get for the
// version or constraint (highest match; an exact version wins), the
// entry's first URL resolved against the repository URL. An exact version
// already in the cache is served without asking the server.
func (f *Fetcher) fetchHTTP(ref Ref) (*Chart, error) {
	key := "chart\x00" + strings.TrimSuffix(ref.RepoURL, "/") + "\x00" + ref.Name + "\x00" + ref.Version
	if exactVersion(ref.Version) {
		if c, ok := f.fromCache(key, ref.Digest); ok {
			return c, nil
		}
	}
	idx, err := f.index(ref.RepoURL)
	if err != nil {
		if c, ok := f.fromCache(key, ref.Digest); ok {
			return c, nil // offline with a warm cache
		}
		return nil, wrap(ref.String(), err)
	}
	cv, err := idx.Get(ref.Name, ref.Version)
	if err != nil {
		return nil, &Error{Kind: Failed, Ref: ref.String(), Err: fmt.Errorf("not in the repository's index: %w", err)}
	}
	if len(cv.URLs) == 0 {
		return nil, &Error{Kind: Failed, Ref: ref.String(), Err: fmt.Errorf("index entry %s-%s has no URL", cv.Name, cv.Version)}
	}
	want := strings.TrimPrefix(cv.Digest, "sha256:")
	if ref.Digest != "" {
		want = strings.TrimPrefix(ref.Digest, "sha256:")
	}
	if data, ok := f.cache.Get(want, f.lim.MaxArchiveBytes); ok {
		_ = f.cache.SetRef(key, want)
		return &Chart{Data: data, Version: cv.Version, Digest: want, Cached: true}, nil
	}
	u, err := repo.ResolveReferenceURL(ref.RepoURL, cv.URLs[0])
	if err != nil {
		return nil, &Error{Kind: Failed, Ref: ref.String(), Err: err}
	}
	data, err := f.get(u, f.lim.MaxArchiveBytes)
	if err != nil {
		return nil, wrap(ref.String(), err)
	}
	got := digestOf(data)
	if want != "" && got != want {
		return nil, &Error{Kind: Digest, Ref: ref.String(), Err: fmt.Errorf("%s has sha256 %s, but the index names %s", u, got, want)}
	}
	if _, err := f.cache.Put(data); err == nil {
		_ = f.cache.SetRef(key, got)
	}
	return &Chart{Data: data, Version: cv.Version, Digest: got}, nil
}

// fromCache serves a chart version the cache resolved before.
func (f *Fetcher) fromCache(key, digest string) (*Chart, bool) {
	d, ok := f.cache.Ref(key)
	if !ok || (digest != "" && strings.TrimPrefix(digest, "sha256:") != d) {
		return nil, false
	}
	data, ok := f.cache.Get(d, f.lim.MaxArchiveBytes)
	if !ok {
		return nil, false
	}
	return &Chart{Data: data, Digest: d, Cached: true}, true
}

// index returns a repository's index, downloaded once per fetcher; when
// the server cannot be reached, the index the cache holds.
func (f *Fetcher) index(repoURL string) (*repo.IndexFile, error) {
	base := strings.TrimSuffix(repoURL, "/")
	f.mu.Lock()
	r, ok := f.indexes[base]
	if !ok {
		r = &indexResult{}
		f.indexes[base] = r
	}
	f.mu.Unlock()
	r.once.Do(func() {
		key := "index\x00" + base
		data, err := f.get(base+"/index.yaml", f.lim.MaxIndexBytes)
		if err != nil {
			d, ok := f.cache.Ref(key)
			cached, hit := f.cache.Get(d, f.lim.MaxIndexBytes)
			if !ok || !hit {
				r.err = err
				return
			}
			data = cached
		} else if d, perr := f.cache.Put(data); perr == nil {
			_ = f.cache.SetRef(key, d)
		}
		r.idx, r.err = parseIndex(data)
	})
	return r.idx, r.err
}

// parseIndex decodes an index.yaml as Helm's repo package does (entries
// sorted newest first), without a file on disk.
func parseIndex(data []byte) (*repo.IndexFile, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, repo.ErrEmptyIndexYaml
	}
	i := &repo.IndexFile{}
	if err := sigsyaml.Unmarshal(data, i); err != nil {
		return nil, fmt.Errorf("index.yaml: %w", err)
	}
	if i.APIVersion == "" {
		return nil, repo.ErrNoAPIVersion
	}
	for name, cvs := range i.Entries {
		kept := cvs[:0]
		for _, cv := range cvs {
			if cv != nil && cv.Metadata != nil && cv.Validate() == nil {
				kept = append(kept, cv)
			}
		}
		i.Entries[name] = kept
	}
	i.SortEntries()
	return i, nil
}

// get downloads u over the guarded client. Helm's HTTP getter takes
// only an *http.Transport and builds its own client around it, which
// would bypass the body caps and the run's budget, so the request is made
// here, as the getter makes it (GET, the chart user agent).
func (f *Fetcher) get(u string, limit int64) ([]byte, error) {
	o := &op{limit: limit}
	ctx, cancel := f.ctx()
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", "capreport (Helm SDK v3)")
	resp, err := f.client(o).Do(req)
	if err != nil {
		return nil, o.classify(u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("failed to fetch %s : %s", u, resp.Status)
	}
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, o.classify(u, err)
	}
	return data, nil
}
