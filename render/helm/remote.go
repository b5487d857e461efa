package helm

import (
	"fmt"

	"helm.sh/helm/v3/pkg/chart"
)

// loadRemote fetches and loads a remote chart.
func (h *Renderer) loadRemote(c Remote) (*chart.Chart, error) {
	if h.Fetch == nil {
		return nil, fmt.Errorf("%s is remote and fetching is off (--fetch)", c.Label())
	}
	return h.Fetch.Fetch(c.Ref())
}

// templateDirs maps template keys to files: a remote chart has no
// directory in the repository.
func (h *Renderer) templateDirs(req Request) *Tree {
	if req.Remote != nil {
		return &Tree{} // no templates of its own to name
	}
	return Dirs(h.Repo, req.ChartDir)
}
