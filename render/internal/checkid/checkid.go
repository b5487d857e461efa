// Package checkid holds the stable check IDs (render.Finding.Check) that
// render's internal packages raise, so that each is spelled once; render
// names them as its exported Check constants.
package checkid

// Never rename one: reports, SARIF rules and config include/exclude lists
// use them.
const (
	RenderFailed    = "render-failed"
	RemoteBase      = "remote-base"
	ExecFunction    = "exec-function"
	KustomizePlugin = "kustomize-plugin"
	HelmChartRemote = "helm-chart-remote"
	PathEscape      = "path-escape"
	SymlinkEscape   = "symlink-escape"
	FileTooLarge    = "file-too-large"
	YAMLAliasBomb   = "yaml-alias-bomb"
	PartialRender   = "partial-render"
)
