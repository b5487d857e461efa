// Package sourceroot is where a GitOps object's source is read from, for
// the Flux and the Argo CD half of the engine alike: this repository's
// root, or a directory a --source maps another repository to.
//
// Sources of other repositories, mapped to local clones (--source
// NAME=PATH, as flux-local's --sources): a Flux Kustomization on a mapped
// GitRepository, OCIRepository or Bucket builds spec.path inside PATH, a
// HelmRelease takes its chart from there, an Argo CD source with a mapped
// repoURL reads path there. The mapped directory stands in the delivery
// chain, as the source it stands for ("../platform GitRepository
// flux-system/platform"), so that every object read through it says so.
package sourceroot

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/capreport/capreport/render/internal/object"
	"github.com/capreport/capreport/render/internal/repofs"
)

// Root is where a GitOps source's files are read from: this repository's
// root (Prefix "", Via nil), or a mapped directory.
type Root struct {
	Prefix string       // root-relative directory the source's paths are relative to
	Via    *object.Link // the chain link naming the mapped source
	// Note says why the source is read from there (SourceResult.Repository).
	Note string
}

// Within joins p to the source root, and refuses a result that leaves the
// mapped directory (a source's paths are inside its own repository).
func (s Root) Within(p string) (string, bool) {
	if s.Prefix == "" {
		return p, true
	}
	joined := path.Join(s.Prefix, p)
	return joined, joined == s.Prefix || strings.HasPrefix(joined, s.Prefix+"/")
}

// NotThisRepo is the advice after a source that is not this repository.
func NotThisRepo(flag string) string {
	return "if it is this one, list its URL under repository.urls in .capreport.yaml or pass --repo-url; if a clone of it is beside this one, map it with --source " + flag + "=PATH"
}

// Path resolves a path of this repository's source; "" and a finding
// message when it leaves the root or does not exist.
func Path(repo *repofs.Repo, p string) (string, string) {
	rel := path.Clean(filepath.ToSlash(p))
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return "", fmt.Sprintf("path %q leaves the repository root", p)
	}
	if rel = strings.TrimPrefix(rel, "/"); rel == "" {
		rel = "."
	}
	if _, err := repo.Resolve(repo.Abs(rel)); err != nil {
		return "", fmt.Sprintf("path %q does not exist in this repository", p)
	}
	return rel, ""
}
