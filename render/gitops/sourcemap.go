package gitops

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/capreport/capreport/render/internal/object"
	"github.com/capreport/capreport/render/internal/repourl"
)

// Sources of other repositories, mapped to local clones (--source
// NAME=PATH, as flux-local's --sources): a Flux Kustomization on a mapped
// GitRepository, OCIRepository or Bucket builds spec.path inside PATH, a
// HelmRelease takes its chart from there, an Argo CD source with a mapped
// repoURL reads path there. The mapped directory stands in the delivery
// chain, as the source it stands for ("../platform GitRepository
// flux-system/platform"), so that every object read through it says so.

// sourceRoot is where a GitOps source's files are read from: this
// repository's root (prefix "", via nil), or a mapped directory.
type sourceRoot struct {
	prefix string       // root-relative directory the source's paths are relative to
	via    *object.Link // the chain link naming the mapped source
	// note says why the source is read from there (SourceResult.Repository).
	note string
}

// mappedFlux finds the mapping of a Flux source by kind, namespace and
// name; a mapping's name may leave out the kind, or the kind and namespace.
func (g *engine) mappedFlux(kind, ns, name string) (sourceRoot, bool) {
	for _, m := range g.sourceMaps {
		if repourl.Identity(m.Name) != "" {
			continue // an Argo CD repoURL
		}
		parts := strings.Split(m.Name, "/")
		var ok bool
		switch len(parts) {
		case 1:
			ok = parts[0] == name
		case 2:
			ok = parts[0] == ns && parts[1] == name
		case 3:
			ok = strings.EqualFold(parts[0], kind) && parts[1] == ns && parts[2] == name
		}
		if ok {
			return sourceRoot{prefix: m.Path, via: &object.Link{File: m.Path, Kind: kind, Namespace: ns, Name: name},
				note: fmt.Sprintf("%s %s/%s is read from %s, which --source %s maps it to", kind, ns, name, m.Path, m.Name)}, true
		}
	}
	return sourceRoot{}, false
}

// mappedRepo finds the mapping of an Argo CD repoURL: a mapping named by a
// URL of the same repository identity.
func (g *engine) mappedRepo(repoURL string) (sourceRoot, bool) {
	id := repourl.Identity(repoURL)
	if id == "" {
		return sourceRoot{}, false
	}
	for _, m := range g.sourceMaps {
		if repourl.Identity(m.Name) == id {
			return sourceRoot{prefix: m.Path, via: &object.Link{File: m.Path, Kind: "Repository", Name: repoURL},
				note: fmt.Sprintf("%s is read from %s, which --source %s maps it to (identity %s)", repoURL, m.Path, m.Name, id)}, true
		}
	}
	return sourceRoot{}, false
}

// argoSourceRoot is where an Argo CD source's repoURL is read: this
// repository, or a mapped clone; ok is false for another repository.
func (g *engine) argoSourceRoot(repoURL string) (sourceRoot, bool) {
	if m, ok := g.mappedRepo(repoURL); ok {
		return m, true
	}
	return sourceRoot{note: g.repoURLs.Decision(repoURL)}, g.repoURLs.Matches(repoURL)
}

// within joins p to the source root, and refuses a result that leaves the
// mapped directory (a source's paths are inside its own repository).
func (s sourceRoot) within(p string) (string, bool) {
	if s.prefix == "" {
		return p, true
	}
	joined := path.Join(s.prefix, p)
	return joined, joined == s.prefix || strings.HasPrefix(joined, s.prefix+"/")
}

// notThisRepo is the advice after a source that is not this repository.
func notThisRepo(flag string) string {
	return "if it is this one, list its URL under repository.urls in .capreport.yaml or pass --repo-url; if a clone of it is beside this one, map it with --source " + flag + "=PATH"
}

// sourcePath resolves a path of this repository's source; "" and a
// finding message when it leaves the root or does not exist.
func (g *engine) sourcePath(p string) (string, string) {
	rel := path.Clean(filepath.ToSlash(p))
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return "", fmt.Sprintf("path %q leaves the repository root", p)
	}
	if rel = strings.TrimPrefix(rel, "/"); rel == "" {
		rel = "."
	}
	if _, err := g.repo.Resolve(g.repo.Abs(rel)); err != nil {
		return "", fmt.Sprintf("path %q does not exist in this repository", p)
	}
	return rel, ""
}

// fluxPath reads a path inside a Flux source as the controllers join it
// (securejoin): ".." stops at the source's root instead of leaving it.
func fluxPath(p string) string {
	return strings.TrimPrefix(path.Clean("/"+filepath.ToSlash(p)), "/")
}
