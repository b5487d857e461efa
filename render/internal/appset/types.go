package appset

// Repo is this repository's tree, as the git generators see it
// (root-relative, slash-separated paths).
type Repo interface {
	// Dirs lists every directory of the repository (not ".", no hidden .git), sorted.
	Dirs() []string
	// Files lists every regular file of the repository, sorted.
	Files() []string
	// ReadFile reads one file (bounded by the caller).
	ReadFile(rel string) ([]byte, error)
}

// Options tune one expansion.
type Options struct {
	// IsThisRepo says whether a git generator's repoURL names this repository.
	IsThisRepo func(repoURL string) bool
	// MaxApplications bounds the number of Applications (default 1000 when <= 0). Expansion stops early:
	// no more than MaxApplications+1 parameter sets are ever materialized, inside matrix and merge too.
	MaxApplications int
	// NewGitFileGlobbing matches git files generator paths with doublestar, as the controller does with
	// --enable-new-git-file-globbing. Off (the controller's default), paths are git ls-files pathspecs,
	// where * also matches across slashes.
	NewGitFileGlobbing bool
	// Run, when set, is the work budget all the run's Expand calls share (NewRunWork).
	Run *RunWork
}

// Problem is one thing the expansion could not do as the cluster would, or refused to do.
type Problem struct {
	Check    string // "appset-generator-unsupported", "appset-too-many", "appset-template", "appset-invalid", "appset-other-repo"
	Severity string // "error", "warning" or "info"
	Message  string // names the ApplicationSet, the generator, and why
}

// Result is what an ApplicationSet delivers: Application documents, sorted by name as the controller
// applies them, and the problems.
type Result struct {
	Applications []map[string]any // full Application documents (apiVersion argoproj.io/v1alpha1, kind Application, metadata, spec)
	Problems     []Problem
}

// Problem checks.
const (
	CheckUnsupported = "appset-generator-unsupported"
	CheckTooMany     = "appset-too-many"
	CheckTemplate    = "appset-template"
	CheckInvalid     = "appset-invalid"
	CheckOtherRepo   = "appset-other-repo"
)

// Problem severities.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
	SeverityInfo    = "info"
)
