// Package render turns a repository path into the Kubernetes objects the
// cluster would receive: Helm charts through the Helm SDK, Kustomize roots
// through krusty, and plain multi-document YAML. Each object keeps its origin.
package render

// SourceType names how a source is rendered.
type SourceType string

const (
	SourceHelm      SourceType = "helm"
	SourceKustomize SourceType = "kustomize"
	SourcePlain     SourceType = "plain"
)

// Origin says where an object came from.
type Origin struct {
	// Source is the chart, overlay or file that rendered the object, as a
	// path relative to the scanned root (slash-separated), plus the value
	// set name for charts rendered more than once (e.g. "charts/api@prod").
	Source string `json:"source"`
	// SourceType is how Source was rendered.
	SourceType SourceType `json:"sourceType"`
	// File is the file the object came from, relative to the scanned root:
	// the template for Helm, the resource file for Kustomize when origin
	// annotations allow, the file itself for plain YAML.
	File string `json:"file"`
	// Line is the 1-based line of the object's document in File, 0 if unknown.
	Line int `json:"line,omitempty"`
	// AnnotationLines is the 1-based line in File of each metadata.annotations
	// key, where known (same coordinates as Line: for Helm, the template's
	// rendered output). A key is absent when its line is unknown, e.g. an
	// annotation added or changed by a Kustomize patch.
	AnnotationLines map[string]int `json:"annotationLines,omitempty"`
}

// Object is one rendered Kubernetes object.
type Object struct {
	APIVersion string
	Kind       string
	Name       string
	Namespace  string // as rendered; empty when the manifest sets none
	// Doc is the decoded manifest (JSON-compatible types: map[string]any,
	// []any, string, float64/int64, bool, nil).
	Doc    map[string]any
	Origin Origin
}

// Status of one source after rendering.
type Status string

const (
	StatusRendered Status = "rendered"
	StatusSkipped  Status = "skipped"
	StatusFailed   Status = "failed"
)

// Severities of a finding, shared by every layer (analyze and rules alias
// them) so that a report never mixes spellings.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
	SeverityInfo    = "info"
)

// Finding is a problem met while discovering or rendering, tied to a place.
type Finding struct {
	Check    string `json:"check"`    // stable ID, e.g. "render-failed", "remote-base"
	Severity string `json:"severity"` // SeverityError, SeverityWarning or SeverityInfo
	Message  string `json:"message"`
	File     string `json:"file,omitempty"`
	Line     int    `json:"line,omitempty"`
	// Source is the ID of the source the finding belongs to (Origin.Source
	// form), empty for findings of discovery as a whole.
	Source string `json:"source,omitempty"`
}

// SourceResult reports what happened to one source.
type SourceResult struct {
	Path     string     `json:"path"`
	Type     SourceType `json:"type"`
	ValueSet string     `json:"valueSet,omitempty"`
	Status   Status     `json:"status"`
	Reason   string     `json:"reason,omitempty"`
	Objects  int        `json:"objects"`
	Findings []Finding  `json:"findings,omitempty"`
}
