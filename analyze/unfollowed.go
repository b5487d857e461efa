package analyze

import (
	"fmt"
	"strings"

	"github.com/capreport/capreport/check"
)

// unfollowed indexes the GitOps objects a render names as not followed
// (its gitops-not-followed findings): a HelmRelease whose chart is in a
// registry, an Application of another repository. What such an object
// installs is missing from the rendered objects, so an autoscaler whose
// target is missing beside one most likely scales a workload of it (every
// HPA of a home-ops repository that scales an app-template HelmRelease's
// Deployment), not the misspelt scaleTargetRef a dangling target otherwise
// is.
type unfollowed struct {
	// bySource: by the source ID of the render that holds the object
	// (Origin.Source: the build a GitOps object delivered, or the
	// directory rendered on its own); byDir: by that source's path, for
	// the same object found both ways and named once.
	bySource, byDir map[string][]notFollowedObject
	// byName: by the object's own name, for a target named after its
	// release in another build (a ResourceSet's HPAs).
	byName map[string][]notFollowedObject
}

// notFollowedObject is one GitOps object render did not follow.
type notFollowedObject struct {
	kind, namespace, name string
	why                   string
}

// because says why a target may be missing: "HelmRelease ns/x was not
// followed (why)".
func (o notFollowedObject) because() string {
	ref := o.name
	if o.namespace != "" {
		ref = o.namespace + "/" + ref
	}
	return fmt.Sprintf("%s %s was not followed (%s)", o.kind, ref, o.why)
}

// newUnfollowed indexes a render's findings. Their messages are
// "FILE:LINE: KIND [NAMESPACE/]NAME: not followed: WHY", as render's
// object.NotFollowed words them; a finding in any other form is left out.
func newUnfollowed(findings []check.Finding) unfollowed {
	u := unfollowed{bySource: map[string][]notFollowedObject{}, byDir: map[string][]notFollowedObject{}, byName: map[string][]notFollowedObject{}}
	for _, f := range findings {
		o, ok := parseNotFollowed(f)
		if !ok {
			continue
		}
		u.bySource[f.Source] = append(u.bySource[f.Source], o)
		dir, _, _ := strings.Cut(f.Source, "@")
		u.byDir[dir] = append(u.byDir[dir], o)
		u.byName[o.name] = append(u.byName[o.name], o)
	}
	return u
}

func parseNotFollowed(f check.Finding) (notFollowedObject, bool) {
	if f.Check != check.GitOpsNotFollowed || f.Source == "" || f.Location == nil {
		return notFollowedObject{}, false
	}
	rest, ok := strings.CutPrefix(f.Message, fmt.Sprintf("%s:%d: ", f.Location.File, f.Location.Line))
	if !ok {
		return notFollowedObject{}, false
	}
	object, why, ok := strings.Cut(rest, ": not followed: ")
	kind, ref, ok2 := strings.Cut(object, " ")
	if !ok || !ok2 || strings.Contains(ref, " ") {
		return notFollowedObject{}, false
	}
	o := notFollowedObject{kind: kind, name: ref, why: why}
	if ns, name, ok := strings.Cut(ref, "/"); ok {
		o.namespace, o.name = ns, name
	}
	return o, true
}

// beside returns the not-followed object most likely to hold a's missing
// target: one of a's own render, else of its directory, else one named as
// the target in its namespace.
func (u unfollowed) beside(a *Autoscaler) (string, bool) {
	dir, _, _ := strings.Cut(a.Origin.Source, "@")
	for _, all := range [][]notFollowedObject{u.bySource[a.Origin.Source], u.byDir[dir]} {
		switch len(all) {
		case 0:
			continue
		case 1:
			return all[0].because(), true
		}
		return fmt.Sprintf("%s (one of %d GitOps objects not followed there)", all[0].because(), len(all)), true
	}
	for _, o := range u.byName[a.Target.Name] {
		if o.namespace == "" || a.Namespace == "" || o.namespace == a.Namespace {
			return o.because(), true
		}
	}
	return "", false
}
