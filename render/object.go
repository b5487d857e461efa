// Package render turns a repository path into the Kubernetes objects the
// cluster would receive: Helm charts through the Helm SDK, Kustomize roots
// through krusty, and plain multi-document YAML. Each object keeps its origin.
package render

import (
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/render/internal/object"
)

// What a render makes (render/internal/object), under render's names.
type (
	// SourceType names how a source is rendered.
	SourceType = object.SourceType
	// Origin says where an object came from.
	Origin = object.Origin
	// Link is one GitOps object of a delivery chain and where it stands:
	// the report's type, so that a chain reaches the report as render
	// found it.
	Link = contract.Link
	// Object is one rendered Kubernetes object.
	Object = object.Object
	// Status of one source after rendering.
	Status = object.Status
	// WithheldObject is an autoscaler a failed GitOps build keeps from the
	// cluster; By names the failed object.
	WithheldObject = object.WithheldObject
	// SourceResult reports what happened to one source.
	SourceResult = object.SourceResult
)

// How a source is rendered.
const (
	SourceHelm      = object.SourceHelm
	SourceKustomize = object.SourceKustomize
	SourcePlain     = object.SourcePlain
)

// What happened to a source (object.Status).
const (
	StatusRendered  = object.StatusRendered
	StatusSkipped   = object.StatusSkipped
	StatusFailed    = object.StatusFailed
	StatusDelivered = object.StatusDelivered
	StatusWithheld  = object.StatusWithheld
)
