package render

// Stable check IDs of the findings render raises (Finding.Check). Never
// rename one: reports, SARIF rules and config include/exclude lists use
// them.
const (
	CheckRenderFailed          = "render-failed"           // a source failed to render (template error, krusty error, ...)
	CheckRenderPanic           = "render-panic"            // an internal panic, recovered, for one source
	CheckRenderTimeout         = "render-timeout"          // a source did not finish within Options.SourceTimeout
	CheckRenderCancelled       = "render-cancelled"        // the context ended while a source rendered
	CheckRemoteBase            = "remote-base"             // a kustomization refers to a URL or git repository
	CheckExecFunction          = "exec-function"           // a kustomization configures an exec/container/starlark function
	CheckKustomizePlugin       = "kustomize-plugin"        // a plugin form capreport does not run
	CheckHelmChartRemote       = "helm-chart-remote"       // a helmCharts entry whose chart is not vendored
	CheckHelmDependencyMissing = "helm-dependency-missing" // Chart.yaml declares a dependency charts/ does not vendor
	CheckPathEscape            = "path-escape"             // a path leaves the repository root
	CheckSymlinkEscape         = "symlink-escape"          // a symlink points outside the repository
	CheckFileTooLarge          = "file-too-large"          // a file over Options.MaxFileBytes
	CheckTooManyObjects        = "too-many-objects"        // a source over Options.MaxObjects
	CheckYAMLAliasBomb         = "yaml-alias-bomb"         // YAML aliases that expand beyond the budget
	CheckYAMLInvalid           = "yaml-invalid"            // a plain YAML document that does not decode
	CheckNotAnObject           = "not-an-object"           // a document without apiVersion or kind
	CheckSourceMissing         = "source-missing"          // an explicit source path that does not exist
)

// CheckIDs lists every check render can raise.
func CheckIDs() []string {
	return []string{
		CheckRenderFailed, CheckRenderPanic, CheckRenderTimeout, CheckRenderCancelled,
		CheckRemoteBase, CheckExecFunction, CheckKustomizePlugin, CheckHelmChartRemote,
		CheckHelmDependencyMissing, CheckPathEscape, CheckSymlinkEscape, CheckFileTooLarge,
		CheckTooManyObjects, CheckYAMLAliasBomb, CheckYAMLInvalid, CheckNotAnObject, CheckSourceMissing,
	}
}
