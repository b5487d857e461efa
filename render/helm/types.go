package helm

import (
	"errors"

	"helm.sh/helm/v3/pkg/chart"

	"github.com/capreport/capreport/render/internal/chartspec"
	"github.com/capreport/capreport/render/internal/fetch"
	"github.com/capreport/capreport/render/internal/repofs"
)

// A Renderer renders charts as `helm template` does, reading the
// repository only through Repo.
type Renderer struct {
	Repo *repofs.Repo
	// Scope is the directory the run scans, where a relative value file
	// is looked up after the chart directory.
	Scope string
	// KubeVersion and APIVersions are what the templates see of the
	// cluster; a request may override them.
	KubeVersion string
	APIVersions []string
	// MaxObjects bounds the objects of one render.
	MaxObjects int
	// Fetch downloads remote charts and dependencies; nil when fetching is
	// off. MaxDependencies bounds the dependencies fetched for one chart.
	Fetch           Fetcher
	MaxDependencies int
	// Tidy takes the machine's paths out of an error's text.
	Tidy func(string) string
}

// A Fetcher downloads and loads the chart a reference names.
type Fetcher interface {
	Fetch(ref fetch.Ref) (*chart.Chart, error)
}

func (h *Renderer) tidy(msg string) string {
	if h.Tidy == nil {
		return msg
	}
	return h.Tidy(msg)
}

// ErrLibraryChart marks a chart that cannot be rendered on its own.
var ErrLibraryChart = errors.New("library chart: it has no objects of its own")

// Request is one chart render.
type Request struct {
	ChartDir string // absolute, inside the root
	Values   Values
	// Trusted lets value files lie outside the root (command-line values).
	Trusted bool
	// Inline values are merged after files and --set (kustomize valuesInline).
	Inline map[string]any
	// OverFiles are merged after the value files and before --set (a
	// GitOps object's own values); SetString are --set-string pairs.
	OverFiles map[string]any
	SetString []string
	// APIVersions and KubeVersion override the renderer's (kustomize helmCharts).
	APIVersions []string
	KubeVersion string
	// Remote is a chart to fetch instead of ChartDir.
	Remote *Remote
	// SkipTests drops helm.sh/hook: test* objects (always true except when
	// a kustomize helmCharts entry says otherwise); SkipHooks drops all hooks.
	SkipTests, SkipHooks bool
}

// Object is one rendered object before its Origin.Source is known.
type Object struct {
	Doc  map[string]any
	File string // root-relative slash path of the template
	Line int
	// AnnLines are the annotation keys' lines, like Line in the rendered output.
	AnnLines map[string]int
}

// What names a chart render besides the chart (render/internal/chartspec),
// under helm's names.
type (
	// Values are a chart's values as `helm template` takes them.
	Values = chartspec.Values
	// A Remote is a chart in a chart repository or OCI registry that a
	// GitOps object or a helmCharts entry names.
	Remote = chartspec.Remote
)
