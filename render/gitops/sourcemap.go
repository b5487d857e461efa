package gitops

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/capreport/capreport/render/gitops/internal/sourceroot"
	"github.com/capreport/capreport/render/internal/object"
	"github.com/capreport/capreport/render/internal/repourl"
)

// mappedFlux finds the mapping of a Flux source by kind, namespace and
// name; a mapping's name may leave out the kind, or the kind and namespace.
func (g *engine) mappedFlux(kind, ns, name string) (sourceroot.Root, bool) {
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
			return sourceroot.Root{Prefix: m.Path, Via: &object.Link{File: m.Path, Kind: kind, Namespace: ns, Name: name},
				Note: fmt.Sprintf("%s %s/%s is read from %s, which --source %s maps it to", kind, ns, name, m.Path, m.Name)}, true
		}
	}
	return sourceroot.Root{}, false
}

// fluxPath reads a path inside a Flux source as the controllers join it
// (securejoin): ".." stops at the source's root instead of leaving it.
func fluxPath(p string) string {
	return strings.TrimPrefix(path.Clean("/"+filepath.ToSlash(p)), "/")
}
