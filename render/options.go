package render

import "time"

// HelmValues are the values a chart is rendered with, in `helm template`
// terms.
type HelmValues struct {
	// ValuesFiles are merged in order, like repeated -f flags. In a
	// SourceSpec (from the repository, untrusted) a path is looked up in
	// the chart directory, then in the scanned root, and must stay inside
	// the root. In Options.Helm (the command line, trusted) a path may be
	// absolute or relative to the working directory, else it is looked up
	// like a SourceSpec's.
	ValuesFiles []string
	// Set holds --set style "a.b=c,d=e" strings, applied after ValuesFiles.
	Set []string
	// ReleaseName and Namespace default to Options.Helm's, then to
	// DefaultReleaseName and DefaultNamespace.
	ReleaseName string
	Namespace   string
}

// SourceSpec names one thing to render.
type SourceSpec struct {
	// Path is relative to the scanned root (slash or OS separators).
	Path string
	// Type is detected from the path when empty: a directory holding
	// Chart.yaml is a chart, one holding a kustomization file is a
	// Kustomize root, anything else (file or directory) is plain YAML.
	Type SourceType
	// Name is the value-set name; it distinguishes one chart rendered
	// several times. Origin.Source becomes Path + "@" + Name.
	Name string
	// Helm values, only used for charts. ValuesFiles and Set are the
	// source's own (Options.Helm's are not added); ReleaseName and
	// Namespace fall back to Options.Helm's.
	Helm HelmValues

	explicit bool // from Options.Sources, not discovered
}

// ID is the source's identity in origins and results: the slash path plus
// "@name" when the source is a named value set.
func (s SourceSpec) ID() string {
	if s.Name == "" {
		return s.Path
	}
	return s.Path + "@" + s.Name
}

// Defaults of the safe mode.
const (
	DefaultReleaseName  = "capreport"
	DefaultNamespace    = "default"
	DefaultKubeVersion  = "1.34.0"
	DefaultMaxFileBytes = 10 << 20
	DefaultMaxObjects   = 10000
	// DefaultSourceTimeout bounds one source's render. Helm's engine and
	// krusty cannot be interrupted, so on timeout the source is reported as
	// failed and its goroutine is abandoned.
	DefaultSourceTimeout = 60 * time.Second
)

// Options control discovery and rendering. Build them from DefaultOptions:
// the zero value of each field means "the default".
type Options struct {
	// Sources are explicit sources (from .capreport.yaml). Each replaces
	// discovery under its path; the rest of the root is still discovered.
	Sources []SourceSpec
	// Helm holds the values for discovered charts (CLI -f, --set,
	// --release-name, --namespace) and the fallback release name and
	// namespace of explicit ones.
	Helm HelmValues
	// KubeVersion is the Kubernetes version templates see in
	// .Capabilities and that Chart.yaml kubeVersion constraints are checked
	// against (the Helm SDK's own default, 1.20, breaks real charts).
	KubeVersion string
	// APIVersions are extra API versions added to .Capabilities.APIVersions
	// (like helm template --api-versions).
	APIVersions []string
	// MaxFileBytes is the largest file read from the repository.
	MaxFileBytes int64
	// MaxObjects is the largest number of objects one source may render.
	MaxObjects int
	// SourceTimeout bounds each source's render.
	SourceTimeout time.Duration
	// Parallelism is the number of sources rendered at once (0: GOMAXPROCS).
	Parallelism int
}

// DefaultOptions returns the safe mode: no network, no plugins or exec
// functions, load restrictions at the root, bounded files and objects.
func DefaultOptions() Options {
	return Options{
		KubeVersion:   DefaultKubeVersion,
		MaxFileBytes:  DefaultMaxFileBytes,
		MaxObjects:    DefaultMaxObjects,
		SourceTimeout: DefaultSourceTimeout,
	}
}

func (o Options) withDefaults() Options {
	d := DefaultOptions()
	if o.KubeVersion == "" {
		o.KubeVersion = d.KubeVersion
	}
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = d.MaxFileBytes
	}
	if o.MaxObjects <= 0 {
		o.MaxObjects = d.MaxObjects
	}
	if o.SourceTimeout <= 0 {
		o.SourceTimeout = d.SourceTimeout
	}
	if o.Helm.ReleaseName == "" {
		o.Helm.ReleaseName = DefaultReleaseName
	}
	if o.Helm.Namespace == "" {
		o.Helm.Namespace = DefaultNamespace
	}
	return o
}

// Result is everything one Render produced, in a deterministic order:
// sources sorted by path then value-set name, objects in source order and,
// within a source, in render order.
type Result struct {
	Objects  []Object
	Sources  []SourceResult
	Findings []Finding
}
