package render

import (
	"github.com/capreport/capreport/render/internal/kustscan"
	"github.com/capreport/capreport/render/kustomize"
)

// helmChartsRemote is a helmCharts entry to fetch, as kustomize's
// HelmChartInflationGenerator pulls it (helm pull --repo <repo> <name>
// --version <version>, or <repo>/<name> for an oci:// repo); nil when the
// chart is vendored.
func helmChartsRemote(hc map[string]any, chartDir string) *remoteChart {
	if chartDir != "" {
		return nil
	}
	return &remoteChart{RepoURL: str(hc, "repo"), Name: str(hc, "name"), Version: str(hc, "version")}
}

// newKustScan is a scan that keeps remote entries when fetching is on.
func (rd *renderer) newKustScan() *kustscan.Scan {
	sc := kustscan.New(rd.repo)
	sc.Fetch = rd.fetchOn()
	return sc
}

// scanSafeFS is the filesystem the scanned build reads, with krusty's
// clones readable when the scan kept a remote base.
func (rd *renderer) scanSafeFS(sc *kustscan.Scan, overlay map[string][]byte) *kustomize.FS {
	fs := kustomize.NewFS(rd.repo, overlay)
	fs.Clones = sc.Remote
	if sc.Remote {
		rd.noteFetch()
	}
	return fs
}
