package analyze

import (
	"fmt"
	"strings"

	"github.com/capreport/capreport/check"
)

// unfollowed indexes the GitOps objects a render names as not followed
// (its gitops-not-followed findings, each About its object): a HelmRelease
// whose chart is in a registry, an Application of another repository.
// What such an object installs is missing from the rendered objects, so an
// autoscaler whose target is missing beside one most likely scales a
// workload of it (every HPA of a home-ops repository that scales an
// app-template HelmRelease's Deployment), not the misspelt scaleTargetRef a
// dangling target otherwise is.
type unfollowed struct {
	// bySource: by the source ID of the render that holds the object
	// (Origin.Source: the build a GitOps object delivered, or the
	// directory rendered on its own); byDir: by that source's path, for
	// the same object found both ways and named once.
	bySource, byDir map[string][]*check.Subject
	// byName: by the object's own name, for a target named after its
	// release in another build (a ResourceSet's HPAs).
	byName map[string][]*check.Subject
}

// because says why a target may be missing: "HelmRelease ns/x was not
// followed (why)".
func because(o *check.Subject) string {
	ref := o.Name
	if o.Namespace != "" {
		ref = o.Namespace + "/" + ref
	}
	return fmt.Sprintf("%s %s was not followed (%s)", o.Kind, ref, o.Detail)
}

// newUnfollowed indexes a render's gitops-not-followed findings by the
// object each is about (Finding.About).
func newUnfollowed(findings []check.Finding) unfollowed {
	u := unfollowed{bySource: map[string][]*check.Subject{}, byDir: map[string][]*check.Subject{}, byName: map[string][]*check.Subject{}}
	for _, f := range findings {
		o := f.About
		if f.Check != check.GitOpsNotFollowed || o == nil {
			continue
		}
		u.bySource[f.Source] = append(u.bySource[f.Source], o)
		dir, _, _ := strings.Cut(f.Source, "@")
		u.byDir[dir] = append(u.byDir[dir], o)
		u.byName[o.Name] = append(u.byName[o.Name], o)
	}
	return u
}

// beside returns the not-followed object most likely to hold a's missing
// target: one of a's own render, else of its directory, else one named as
// the target in its namespace.
func (u unfollowed) beside(a *Autoscaler) (string, bool) {
	dir, _, _ := strings.Cut(a.Origin.Source, "@")
	for _, all := range [][]*check.Subject{u.bySource[a.Origin.Source], u.byDir[dir]} {
		switch len(all) {
		case 0:
			continue
		case 1:
			return because(all[0]), true
		}
		return fmt.Sprintf("%s (one of %d GitOps objects not followed there)", because(all[0]), len(all)), true
	}
	for _, o := range u.byName[a.Target.Name] {
		if o.Namespace == "" || a.Namespace == "" || o.Namespace == a.Namespace {
			return because(o), true
		}
	}
	return "", false
}
