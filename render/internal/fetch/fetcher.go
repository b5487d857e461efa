package fetch

import (
	"fmt"
	"net/url"
	"os"
)

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
