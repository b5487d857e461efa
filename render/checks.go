package render

import "github.com/capreport/capreport/render/internal/checkid"

// Stable check IDs of the findings render raises (Finding.Check). Never
// rename one: reports, SARIF rules and config include/exclude lists use
// them. Those the internal packages raise are spelled in checkid.
const (
	CheckRenderFailed          = checkid.RenderFailed       // a source failed to render (template error, krusty error, ...)
	CheckRenderPanic           = "render-panic"             // an internal panic, recovered, for one source
	CheckRenderTimeout         = "render-timeout"           // a source did not finish within Options.SourceTimeout
	CheckRenderCancelled       = "render-cancelled"         // the context ended while a source rendered
	CheckRemoteBase            = checkid.RemoteBase         // a kustomization refers to a URL or git repository
	CheckExecFunction          = checkid.ExecFunction       // a kustomization configures an exec/container/starlark function
	CheckKustomizePlugin       = checkid.KustomizePlugin    // a plugin form capreport does not run
	CheckHelmChartRemote       = checkid.HelmChartRemote    // a helmCharts entry whose chart is not vendored
	CheckHelmDependencyMissing = "helm-dependency-missing"  // Chart.yaml declares a dependency charts/ does not vendor
	CheckPathEscape            = checkid.PathEscape         // a path leaves the repository root
	CheckSymlinkEscape         = checkid.SymlinkEscape      // a symlink points outside the repository
	CheckFileTooLarge          = checkid.FileTooLarge       // a file over Options.MaxFileBytes
	CheckTooManyObjects        = "too-many-objects"         // a source over Options.MaxObjects
	CheckYAMLAliasBomb         = checkid.YAMLAliasBomb      // YAML aliases that expand beyond the budget
	CheckYAMLInvalid           = "yaml-invalid"             // a plain YAML document that does not decode
	CheckNotAnObject           = "not-an-object"            // a document without apiVersion or kind
	CheckSourceMissing         = "source-missing"           // an explicit source path that does not exist
	CheckGitOpsNotFollowed     = "gitops-not-followed"      // a Flux or Argo CD object capreport cannot follow offline
	CheckGitOpsReference       = "gitops-reference-missing" // a ConfigMap, Secret, source or chart a GitOps object names is not in the render
	CheckGitOpsSubstitution    = "gitops-substitution"      // a Flux postBuild variable left unresolved, or a substitution refused
	CheckGitOpsCycle           = "gitops-cycle"             // GitOps objects that deliver each other
	CheckGitOpsLimit           = "gitops-limit"             // more GitOps objects, or a deeper chain, than capreport follows
	CheckDuplicateDelivery     = "duplicate-delivery"       // one autoscaler delivered by two chains
	CheckPartialRender         = checkid.PartialRender      // a source rendered without an entry it refers to
	CheckSchemaRef             = "schema-ref-outside"       // a chart's values schema refers to a URL or file outside it
	CheckYAMLEncoding          = "yaml-encoding"            // a plain YAML file in UTF-16 or with CR-only line breaks, converted
	CheckYAMLDuplicateKey      = "yaml-duplicate-key"       // a document defines one mapping key twice
)

// CheckIDs lists every check render can raise.
func CheckIDs() []string {
	return []string{
		CheckRenderFailed, CheckRenderPanic, CheckRenderTimeout, CheckRenderCancelled,
		CheckRemoteBase, CheckExecFunction, CheckKustomizePlugin, CheckHelmChartRemote,
		CheckHelmDependencyMissing, CheckPathEscape, CheckSymlinkEscape, CheckFileTooLarge,
		CheckTooManyObjects, CheckYAMLAliasBomb, CheckYAMLInvalid, CheckNotAnObject, CheckSourceMissing,
		CheckGitOpsNotFollowed, CheckGitOpsReference, CheckGitOpsSubstitution, CheckGitOpsCycle, CheckGitOpsLimit,
		CheckDuplicateDelivery, CheckPartialRender, CheckSchemaRef, CheckYAMLEncoding, CheckYAMLDuplicateKey,
		CheckRenderMemory, CheckRenderCrashed, CheckRenderLog,
		CheckFetchFailed, CheckFetchLimit, CheckFetchUnsafe, CheckFetchDigest,
	}
}
