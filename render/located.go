package render

import (
	"bytes"
	"slices"

	"github.com/capreport/capreport/render/gitops"
	"github.com/capreport/capreport/render/internal/kustscan"
	"github.com/capreport/capreport/render/internal/object"
)

// locatedKinds are the kinds of the objects that needsOrigin, with the
// groups one of which a file declaring one must name (an app.k8s.io
// Application is no Argo CD one): a file that holds such an object says so
// on a "kind:" line. The test is a prediction, which a CRD naming one of
// them (spec.names.kind) only makes cautious: a build that yields such an
// object from a file written otherwise (flow style, JSON, a patch that
// changes a kind) is caught on its output and built again traced.
var locatedKinds = []struct {
	kind   string
	groups []string
}{
	{"HorizontalPodAutoscaler", nil},
	{"ScaledObject", []string{"keda.sh", "keda.k8s.io"}},
	{"ScaledJob", []string{"keda.sh"}},
	{"TriggerAuthentication", []string{"keda.sh"}},
	{"ClusterTriggerAuthentication", []string{"keda.sh"}},
	{"Kustomization", []string{"kustomize.toolkit.fluxcd.io"}},
	{"HelmRelease", []string{"helm.toolkit.fluxcd.io", "helm.fluxcd.io"}},
	{"Application", []string{"argoproj.io"}},
	{"ApplicationSet", []string{"argoproj.io"}},
}

// needsOrigin reports whether the report may point at o's file and line:
// autoscalers and the KEDA objects it lists as skipped, and the GitOps
// objects whose chains and findings name their place. (The targets of
// autoscalers are the other objects located; traceTargets sees to them.)
func needsOrigin(o Object) bool {
	switch object.Group(o.APIVersion) {
	case "keda.sh", "keda.k8s.io":
		return true
	}
	return object.IsAutoscaler(&o) || gitops.Is(&o)
}

// namesLocatedKind reports whether a file the scanned build lists has a
// "kind:" line naming one of locatedKinds, and names its group. Helm
// charts its kustomizations inflate are not read: their objects carry
// capreport's own origin annotation. (krusty reads the files again; from
// the page cache, that is a small fraction of parsing them.)
func (rd *renderer) namesLocatedKind(sc *kustscan.Scan) bool {
	for _, f := range sc.Files {
		data, err := rd.repo.ReadFile(f)
		if err != nil {
			return true // krusty reports it; trace rather than guess
		}
		for _, k := range locatedKinds {
			named := len(k.groups) == 0 || slices.ContainsFunc(k.groups, func(g string) bool { return bytes.Contains(data, []byte(g)) })
			if named && declaresKind(data, []byte(k.kind)) {
				return true
			}
		}
	}
	return false
}

// declaresKind reports whether some line of data is "kind: <kind>", maybe
// indented, in a list item, quoted or followed by a comment.
func declaresKind(data, kind []byte) bool {
	for off := 0; ; {
		i := bytes.Index(data[off:], kind)
		if i < 0 {
			return false
		}
		i += off
		off = i + len(kind)
		start := bytes.LastIndexByte(data[:i], '\n') + 1
		head := bytes.TrimRight(data[start:i], "\"' \t")
		rest := data[off:]
		if e := bytes.IndexByte(rest, '\n'); e >= 0 {
			rest = rest[:e]
		}
		rest = bytes.TrimLeft(rest, "\"' \t\r")
		if bytes.HasSuffix(head, []byte("kind:")) && len(bytes.Trim(head[:len(head)-5], " \t-")) == 0 &&
			(len(rest) == 0 || rest[0] == '#') {
			return true
		}
	}
}
