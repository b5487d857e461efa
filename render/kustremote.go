package render

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/capreport/capreport/render/internal/kustscan"
	"github.com/capreport/capreport/render/internal/repofs"
	"github.com/capreport/capreport/render/internal/yamldoc"
)

// Remote kustomize bases are fetched by krusty's own loader under
// --fetch: it clones a git URL with the git binary (depth 1, the ?ref=
// given) into a directory it makes with os.MkdirTemp("", "kustomize-"),
// and reads an https file with its own HTTP client. capreport lets the
// build read those clones, and nothing else outside the root.

// cloneRoot is where krusty makes its clones.
func cloneRoot() string {
	t, err := filepath.EvalSymlinks(os.TempDir())
	if err != nil {
		return os.TempDir()
	}
	return t
}

// clonePath accepts a path inside one of krusty's clone directories.
func (fs *safeFS) clonePath(abs string) (string, bool) {
	if !fs.clones {
		return "", false
	}
	root := cloneRoot()
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		real = filepath.Clean(abs) // not yet there: krusty asks before it clones
	}
	rel, err := filepath.Rel(root, real)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return "", false
	}
	first := strings.Split(rel, string(filepath.Separator))[0]
	if !strings.HasPrefix(first, "kustomize-") {
		return "", false
	}
	return real, true
}

// readClone reads a file of a clone within the file size limit.
func (fs *safeFS) readClone(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, fs.r.MaxBytes+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > fs.r.MaxBytes {
		return nil, fs.violate(&repofs.PathError{Rel: p, Err: repofs.ErrTooLarge, Detail: fmt.Sprintf("limit %d", fs.r.MaxBytes)})
	}
	if err := yamldoc.CheckAliases(data); err != nil {
		return nil, fs.violate(&yamldoc.DocError{File: p, Err: err})
	}
	return data, nil
}

// removeClone lets krusty clean its clone up; everything else is read-only.
func (fs *safeFS) removeClone(p string) error {
	abs, err := filepath.Abs(p)
	if err != nil {
		return errReadOnly
	}
	if real, ok := fs.clonePath(abs); ok {
		return os.RemoveAll(real)
	}
	return errReadOnly
}

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
func (rd *renderer) scanSafeFS(sc *kustscan.Scan, overlay map[string][]byte) *safeFS {
	fs := newSafeFS(rd.repo, overlay)
	fs.clones = sc.Remote
	if sc.Remote {
		rd.noteFetch()
	}
	return fs
}
