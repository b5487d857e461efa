package render

import (
	"os"
	"path/filepath"
	"time"

	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render/helm"
	"github.com/capreport/capreport/render/internal/digestmemo"
	"github.com/capreport/capreport/render/internal/object"
	"github.com/capreport/capreport/render/internal/source"
)

// HelmValues are a chart's values as `helm template` takes them
// (helm.Values).
type HelmValues = helm.Values

// What a source is and how it renders (render/internal/source), under
// render's names.
type (
	// SourceSpec names one thing to render.
	SourceSpec = source.Spec
	// SourceMap is one --source NAME=PATH: the GitOps source NAME names is
	// read from Path, a root-relative slash path of a directory.
	SourceMap = source.Map
	// deliverySpec is how a GitOps object renders a source.
	deliverySpec = source.Delivery
	// dirOptions are an Argo CD directory source's file selection.
	dirOptions = source.Dir
)

// Defaults of the safe mode.
const (
	DefaultReleaseName  = "capreport"
	DefaultNamespace    = object.DefaultNamespace
	DefaultKubeVersion  = "1.34.0"
	DefaultMaxFileBytes = 10 << 20
	DefaultMaxObjects   = 10000
	// DefaultSourceTimeout bounds one source's render. Helm's engine and
	// krusty cannot be interrupted, so on timeout the source is reported as
	// failed and its goroutine is abandoned.
	DefaultSourceTimeout = 60 * time.Second
)

// DefaultAPIVersions are added to .Capabilities.APIVersions on top of
// Helm's built-in set: the custom APIs charts commonly gate their
// autoscalers and monitors on. A cluster that lacks one of them would not
// accept those objects anyway.
var defaultAPIVersions = []string{
	"autoscaling/v2", "autoscaling/v2/HorizontalPodAutoscaler",
	"keda.sh/v1alpha1", "keda.sh/v1alpha1/ScaledObject", "keda.sh/v1alpha1/ScaledJob", "keda.sh/v1alpha1/TriggerAuthentication",
	"monitoring.coreos.com/v1", "monitoring.coreos.com/v1/ServiceMonitor", "monitoring.coreos.com/v1/PodMonitor", "monitoring.coreos.com/v1/PrometheusRule",
	"argoproj.io/v1alpha1", "argoproj.io/v1alpha1/Rollout",
	"policy/v1", "policy/v1/PodDisruptionBudget",
}

// DefaultAPIVersions returns a copy of the API versions charts see by default.
func DefaultAPIVersions() []string { return append([]string(nil), defaultAPIVersions...) }

// Options control discovery and rendering. Build them from DefaultOptions:
// the zero value of each field means "the default".
type Options struct {
	// FS is the file system the repository is read from: Root, Render's
	// path and every path inside the repository name files of it, and
	// every read goes through it. Nil: the disk, filesys.MakeFsOnDisk().
	// On disk, symlinks are evaluated and refused when they leave the
	// root. Any other file system (filesys.MakeFsInMemory() in tests) must
	// have none, as kyaml's in-memory one has none, unless it reads the
	// disk too and says so with an OnDisk() bool method; relative paths in
	// it start at its root, "/". Command-line values files (Helm) are read
	// from it as well. Sources render in worker processes (Isolation) only
	// when FS is filesys.MakeFsOnDisk() itself: a worker opens the root
	// again from its path and cannot see any other file system, so with
	// one every source renders in-process.
	FS filesys.FileSystem
	// Root is the repository root: it bounds what may be read, and every
	// path in the result is relative to it. Empty: the path given to
	// Render is the root. Render's path says what to report: discovery
	// walks only below it, while overlays and GitOps objects found there
	// may read anywhere inside Root.
	Root string
	// RepoURLs are URLs that name this repository (its git remotes and the
	// config's list): Flux GitRepositories and Argo CD sources with one of
	// them are followed into this checkout.
	RepoURLs []string
	// SourceMaps point GitOps sources of other repositories at directories
	// inside Root (--source NAME=PATH, flux-local's --sources): a Flux
	// GitRepository, OCIRepository or Bucket by [Kind/][namespace/]name,
	// an Argo CD repoURL by its repository identity.
	SourceMaps []SourceMap
	// NoGitOps renders Flux and Argo CD objects as inert objects.
	NoGitOps bool
	// noDeferral renders every discovered source on its own before
	// following (deferral.go), and deferred, when set, is told how many
	// sources were left to their delivery and why they were rendered after
	// all ("": they were not): the tests compare the two ways.
	noDeferral bool
	deferred   func(n int, redo string)
	// Progress, when set, is told each time a discovered source's render
	// is done (from several goroutines at once): how many of how many.
	Progress func(done, total int) `json:"-"`
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
	// (like helm template --api-versions). DefaultOptions sets
	// DefaultAPIVersions.
	APIVersions []string
	// MaxFileBytes is the largest file read from the repository.
	MaxFileBytes int64
	// MaxObjects is the largest number of objects one source may render.
	MaxObjects int
	// SourceTimeout bounds each source's render.
	SourceTimeout time.Duration
	// Parallelism is the number of sources rendered at once (0: GOMAXPROCS).
	Parallelism int
	// Isolation renders each source in a worker process that is stopped
	// when it outlives SourceTimeout or its memory budget. The zero value
	// renders in-process, and so does an FS other than the disk.
	Isolation Isolation
	// Fetch lets the run download charts and bases (see fetch.go); the
	// zero value fetches nothing.
	Fetch FetchOptions
	// RenderCacheDir, when set, is the render cache (cache.go): a source
	// whose inputs read the same as when a render was stored there is
	// taken from it instead of rendered. A render that fetches is never
	// stored.
	RenderCacheDir string
	// Checkout, when set, says the root is a checkout only capreport
	// writes to, which lets the render cache trust git for which of its
	// files changed since an earlier run (render/internal/digestmemo).
	Checkout *Checkout
	// CheckFirst, when set, gives the root-relative paths the caller
	// expects to have changed since the render cache was filled (a pull
	// request's); renderAll checks the sources they are under first, so
	// that those that must render start early. It may wait until it knows.
	CheckFirst func() []string
	// Keep, when set, says which rendered objects the caller needs. The
	// others are dropped as each source finishes (still counted in its
	// SourceResult.Objects), so the run holds what the caller keeps, not
	// the repository; what the GitOps objects read (ConfigMaps, Secrets,
	// Flux and Argo CD objects) stays until they have been followed.
	Keep func(*Object) bool
	// StubCRDs: the caller never reads a CustomResourceDefinition past its
	// apiVersion, kind and metadata (its Keep drops them). krusty then
	// reads each CRD of a file listed only as a resource as a stub of
	// those three fields (internal/kustread; on a large Kustomize
	// repository most of what krusty parses), and a build in which
	// anything read or wrote more of one is built again from the files.
	StubCRDs bool
	// LocatedOnly traces to their file and line only the objects the report
	// locates: autoscalers, KEDA and GitOps objects, and the targets of
	// autoscalers. A Kustomize build that holds none of them is built
	// without krusty's origin annotations (a third of a large build's CPU),
	// and its objects point at their kustomization (kustomize.go). The
	// zero value traces every object.
	LocatedOnly bool
}

// DefaultOptions returns the safe mode: no network, no plugins or exec
// functions, load restrictions at the root, bounded files and objects.
func DefaultOptions() Options {
	return Options{
		FS:            filesys.MakeFsOnDisk(),
		KubeVersion:   DefaultKubeVersion,
		APIVersions:   DefaultAPIVersions(),
		MaxFileBytes:  DefaultMaxFileBytes,
		MaxObjects:    DefaultMaxObjects,
		SourceTimeout: DefaultSourceTimeout,
	}
}

func (o Options) withDefaults() Options {
	d := DefaultOptions()
	if o.FS == nil {
		o.FS = d.FS
	}
	if o.KubeVersion == "" {
		o.KubeVersion = d.KubeVersion
	}
	if o.APIVersions == nil {
		o.APIVersions = d.APIVersions
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
	if o.Fetch.Enabled {
		o.Fetch = o.Fetch.withDefaults()
	}
	return o
}

// Result is everything one Render produced, in a deterministic order:
// sources sorted by path then value-set name, objects in source order and,
// within a source, in render order.
type Result struct {
	Objects  []Object
	Sources  []SourceResult
	Findings []check.Finding
	// Withheld are the autoscalers beneath a GitOps object whose build
	// failed: found in the repository, never applied.
	Withheld []WithheldObject
}

// Checkout says that the root is a checkout of a git commit that only
// capreport writes to (pipeline's kept worktree), so that the render
// cache's digest memo may take git's word on what changed since an
// earlier commit instead of a stat of every input (digestmemo.Checkout).
type Checkout = digestmemo.Checkout

// PrereadMemo starts reading the digest memo of the repository at root,
// in the render cache directory cacheDir (Options.RenderCacheDir), for the
// next Render of that root to take: a diff's base reads its worktree's
// memo while git moves the worktree, instead of after. drop forgets it if
// no Render took it.
func PrereadMemo(cacheDir, root string) (drop func()) { return digestmemo.Preread(cacheDir, root) }

// FetchOptions let a run download what the repository points at: Helm
// chart dependencies, the remote charts of Flux and Argo CD objects and
// kustomize helmCharts, and remote kustomize bases. Off by default: an
// untrusted repository then makes the runner fetch nothing. Plain data,
// since Options cross to the render workers with gob.
type FetchOptions struct {
	// Enabled turns fetching on (--fetch).
	Enabled bool
	// CacheDir is the content-addressed cache ("": DefaultCacheDir).
	CacheDir string
	// RequestTimeout bounds one HTTP request; RunTimeout every fetch of
	// the run together.
	RequestTimeout, RunTimeout time.Duration
	// Deadline is when RunTimeout ends; Render sets it.
	Deadline time.Time
	// MaxArchiveBytes bounds one download, MaxTotalBytes all of a run's.
	MaxArchiveBytes, MaxTotalBytes int64
	// MaxUnpackedBytes and MaxFiles bound one archive's contents.
	MaxUnpackedBytes int64
	MaxFiles         int
	// MaxDependencies bounds the dependencies fetched for one chart.
	MaxDependencies int
}

func (f FetchOptions) withDefaults() FetchOptions {
	if f.CacheDir == "" {
		f.CacheDir = DefaultCacheDir()
	}
	if f.RequestTimeout <= 0 {
		f.RequestTimeout = DefaultFetchRequestTimeout
	}
	if f.RunTimeout <= 0 {
		f.RunTimeout = DefaultFetchRunTimeout
	}
	if f.MaxArchiveBytes <= 0 {
		f.MaxArchiveBytes = DefaultMaxArchiveBytes
	}
	if f.MaxTotalBytes <= 0 {
		f.MaxTotalBytes = DefaultMaxFetchTotalBytes
	}
	if f.MaxUnpackedBytes <= 0 {
		f.MaxUnpackedBytes = DefaultMaxUnpackedBytes
	}
	if f.MaxFiles <= 0 {
		f.MaxFiles = DefaultMaxArchiveFiles
	}
	if f.MaxDependencies <= 0 {
		f.MaxDependencies = DefaultMaxDependencies
	}
	return f
}

// remoteChart is a chart in a chart repository or OCI registry
// (helm.Remote).
type remoteChart = helm.Remote

// Isolation runs every source's render in a worker process
// (render/worker): a process is the only unit that can be stopped when a
// render outlives its time or memory (Helm's engine and krusty take no
// context), and that survives a fatal runtime error (a template recursing
// until the stack overflows). Each worker renders one source at a time, so
// what it prints belongs to that source.
type Isolation struct {
	// Command starts a worker: a program that calls IsWorker and
	// ServeWorker first thing (capreport itself). Empty: render in-process,
	// bounded only by the timeout, which then cannot stop the work. A
	// worker reads the repository from the disk, so with an Options.FS
	// other than filesys.MakeFsOnDisk() the render is in-process too.
	Command []string
	// MaxMemory is the memory one worker may hold (0: DefaultSourceMemory).
	MaxMemory int64
}

// DefaultSourceMemory bounds one render's memory in a worker. Real charts
// and overlays render in tens of MiB; kubeflow's largest in about 200.
const DefaultSourceMemory = 512 << 20

func (iso Isolation) memory() int64 {
	if iso.MaxMemory > 0 {
		return iso.MaxMemory
	}
	return DefaultSourceMemory
}

// Defaults of fetching.
const (
	DefaultFetchRequestTimeout = 30 * time.Second
	DefaultFetchRunTimeout     = 5 * time.Minute
	DefaultMaxArchiveBytes     = 20 << 20
	DefaultMaxFetchTotalBytes  = 512 << 20
	DefaultMaxUnpackedBytes    = 64 << 20
	DefaultMaxArchiveFiles     = 5000
	DefaultMaxDependencies     = 100
	// maxIndexBytes bounds a repository index.yaml (bitnami's is tens of MiB).
	maxIndexBytes = 128 << 20
)

// DefaultCacheDir is capreport's directory in the user cache directory.
func DefaultCacheDir() string {
	d, err := os.UserCacheDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "capreport-cache")
	}
	return filepath.Join(d, "capreport")
}
